import OpenPushCore

/// One request on its way: queued, in flight on some stream, or back on the queue for a retry.
///
/// `@unchecked Sendable`: it has one owner at a time — the sender, then the event loop's
/// thread, which it reaches through the loop's inbox (a lock).
final class APNSPendingRequest: @unchecked Sendable {
    /// The wire headers, pseudo-headers first; `authorization` is filled in by `authorize`
    /// as the request goes out (in place: the event loop copies no header list per push).
    private(set) var headers: [(name: String, value: String)]
    private static let authorizationIndex = 4
    let payload: [UInt8]
    /// Whose queue it waits in for a stream (`APNSRequestQueue`).
    let sender: APNSSender
    /// Monotonic seconds after which the request, while queued (never sent), fails with `timeout`.
    let deadline: Double
    /// Set as it goes on the wire: monotonic seconds after which, unanswered, it fails with
    /// `timeout`. A whole request timeout from the write, not from the queueing: the server may
    /// be answering it, and a request given up is sent again by its caller, so the time it
    /// waited for a stream on a loaded machine is not taken from its time to be answered.
    var answerBy = Double.infinity
    /// Resets and lost connections so far; GOAWAY refusals do not count (never processed).
    var transportFailures = 0
    /// Already retried once after `ExpiredProviderToken`.
    var refreshedToken = false
    /// The JWT it went out with, to tell APNs' verdict on that token from a newer one.
    var sentJWT = ""
    private var completion: (@Sendable (Result<HTTP2WireResponse, APNSTransportError>) -> Void)?
    /// Its headers have an `authorization` slot for the connection to fill (APNs pushes); a
    /// request of another service carries its own authorization, left as it is.
    private let hasAuthorizationSlot: Bool

    /// An APNs request: its answer read into an `APNSResponse`.
    convenience init(
        headers: [(name: String, value: String)], payload: [UInt8], sender: APNSSender, deadline: Double,
        completion: @escaping @Sendable (Result<APNSResponse, APNSTransportError>) -> Void
    ) {
        var all = headers
        all.insert(("authorization", ""), at: Self.authorizationIndex)
        self.init(wireHeaders: all, payload: payload, sender: sender, deadline: deadline, authorizationSlot: true) {
            completion($0.map(APNSConnection.response))
        }
    }

    /// A request with its headers exactly as they go out (`authorizationSlot`: the slot is
    /// in them, at `authorizationIndex`), answered with the response as it came.
    init(
        wireHeaders: [(name: String, value: String)], payload: [UInt8], sender: APNSSender, deadline: Double,
        authorizationSlot: Bool, completion: @escaping @Sendable (Result<HTTP2WireResponse, APNSTransportError>) -> Void
    ) {
        self.headers = wireHeaders
        self.payload = payload
        self.sender = sender
        self.deadline = deadline
        hasAuthorizationSlot = authorizationSlot
        self.completion = completion
    }

    /// The `authorization` slot was taken out: the request goes over a certificate's connection.
    private var isCertificateAuthenticated = false

    /// Sets the `authorization` header (`bearer <jwt>`).
    func authorize(_ value: String) {
        guard hasAuthorizationSlot else { return }
        headers[Self.authorizationIndex].value = value
    }

    /// Removes the `authorization` header: the connection's client certificate authenticates,
    /// or the request carries its own. Once only, however often the request goes out.
    func authorizeByCertificate() {
        guard hasAuthorizationSlot, !isCertificateAuthenticated else { return }
        isCertificateAuthenticated = true
        headers.remove(at: Self.authorizationIndex)
    }

    /// Hands over the outcome; only the first call counts.
    func complete(_ result: Result<HTTP2WireResponse, APNSTransportError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }

    /// The wire headers of `push` for `endpoint` (without `authorization`), the `apns-*` ones
    /// in `APNSHeaders.fields` order (written out here: no list per push to copy from).
    static func headers(for push: APNSPush, endpoint: APNSEndpoint) -> [(name: String, value: String)] {
        let apns = push.request.headers
        var headers: [(name: String, value: String)] = [
            (":method", "POST"),
            (":scheme", endpoint.scheme),
            (":authority", endpoint.authority),
            (":path", "/3/device/" + push.deviceToken),
            ("apns-push-type", apns.pushType.rawValue),
            ("apns-topic", apns.topic),
            ("apns-priority", String(apns.priority)),
            ("apns-expiration", String(apns.expiration)),
            ("apns-id", apns.apnsID),
        ]
        headers.reserveCapacity(12)
        // Spaces at the ends are no part of a field value, and HTTP/2 forbids sending them.
        if let collapseID = apns.collapseID { headers.append(("apns-collapse-id", HeaderText.trimmingSpaces(collapseID))) }
        // No content-type: APNs does not ask for one, and each header is work on both ends.
        headers.append(("content-length", String(push.request.payloadBytes.count)))
        return headers
    }

    /// The name of the first header whose value cannot go on the wire (`HeaderText.isSendable`),
    /// if any. Such a request is refused before it reaches nghttp2: a control character in a
    /// header can make the peer reset the connection, failing every app's pushes on it.
    /// A pseudo-header (`:path`) takes no space at all.
    static func unsendableField(in headers: [(name: String, value: String)]) -> String? {
        headers.first { field in
            field.name.hasPrefix(":") ? !HeaderText.isVisibleASCII(field.value) : !HeaderText.isSendable(field.value)
        }?.name
    }

    /// `unsendableField(in:)` for a device push, checking only what comes from outside the
    /// client (the token in `:path`, the topic, the collapse id): every other header is a value
    /// the client writes itself, and this runs for every push.
    static func unsendableField(of push: APNSPush) -> String? {
        let apns = push.request.headers
        if !HeaderText.isVisibleASCII(push.deviceToken) { return ":path" }
        if !HeaderText.isSendable(apns.topic) { return "apns-topic" }
        if let collapseID = apns.collapseID, !HeaderText.isSendable(HeaderText.trimmingSpaces(collapseID)) {
            return "apns-collapse-id"
        }
        return nil
    }

    /// The failure of a request refused by `unsendableField`; it never left this client.
    static func unsendable(_ field: String) -> APNSTransportError {
        APNSTransportError(.invalidHeader, "\(field): a header value must be printable ASCII, with no space at either end")
    }

    /// Headers whose value is new on every push: never added to HPACK's dynamic tables, where
    /// each would evict an entry that repeats (the provider token, the topic) and make it go
    /// out in full again.
    static let unindexedHeaders = ["apns-id"]
}
