import Crypto
import HTTPClient
import OpenPushCore

extension WebPushSender {
    /// What one window's pushes share, worked out once for the window rather than per push: a
    /// fan-out's window is one origin, one app, one `Authorization` and one set of headers.
    struct Memo {
        /// The last endpoint's scheme and authority (`https://host:port`) and what checking it gave.
        fileprivate var endpoint: (prefix: Substring, checked: Result<WebPushEndpoint, WebPushEndpoint.Problem>)?
        fileprivate var authorization: (audience: String, header: Result<String, Refusal>)?
        fileprivate var keys: (p256dh: String, auth: String, receiver: [UInt8], secret: [UInt8])?
        fileprivate var headers: (ttl: Int, urgency: WebPushRequest.Urgency, topic: String?, authorization: String,
                                  list: [(name: String, value: String)])?
    }

    /// The POST for one push, or why there is none.
    func prepare(_ request: WebPushRequest, vapidKey: WebPushVAPIDKey, app: String,
                 now: Double) -> Result<HTTPClientRequest, Refusal> {
        var memo = Memo()
        return prepare(request, vapidKey: vapidKey, app: app, now: now, memo: &memo)
    }

    /// The POST for one push, or why there is none; `memo` carries what the window's pushes before
    /// it worked out.
    func prepare(_ request: WebPushRequest, vapidKey: WebPushVAPIDKey, app: String, now: Double,
                 memo: inout Memo) -> Result<HTTPClientRequest, Refusal> {
        let endpoint: WebPushEndpoint
        switch checkedEndpoint(request.endpoint, memo: &memo) {
        case .success(let checked): endpoint = checked
        case .failure(let problem): return .failure(Refusal(message: problem.message))
        }
        let receiver: [UInt8]
        let secret: [UInt8]
        if let keys = memo.keys, keys.p256dh == request.p256dh, keys.auth == request.auth {
            (receiver, secret) = (keys.receiver, keys.secret)
        } else {
            guard let decodedReceiver = Base64URL.decode(request.p256dh),
                  let decodedSecret = Base64URL.decode(request.auth) else {
                return .failure(Refusal(message: "the subscription's web_p256 or web_auth is not base64url"))
            }
            (receiver, secret) = (decodedReceiver, decodedSecret)
            memo.keys = (request.p256dh, request.auth, receiver, secret)
        }
        let body: [UInt8]
        do {
            body = try WebPushEncryption.encrypt(request.plaintext, receiverPublicKey: receiver, authSecret: secret)
        } catch {
            return .failure(Refusal(message: "could not encrypt for the subscription's keys: \(error)"))
        }
        let audience = endpoint.origin
        let signed: Result<String, Refusal>
        if let known = memo.authorization, known.audience == audience {
            signed = known.header
        } else {
            signed = authorizations.header(for: vapidKey, app: app, audience: audience, now: now)
            memo.authorization = (audience, signed)
        }
        let authorization: String
        switch signed {
        case .success(let header): authorization = header
        case .failure(let refusal): return .failure(refusal)
        }
        let headers: [(name: String, value: String)]
        if let known = memo.headers, known.ttl == request.ttl, known.urgency == request.urgency, known.topic == request.topic,
           known.authorization == authorization {
            // The same array each time: the HTTP client then shares one header list among them.
            headers = known.list
        } else {
            var list: [(name: String, value: String)] = [
                ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"),
                ("TTL", String(max(0, request.ttl))), ("Urgency", request.urgency.rawValue), ("Authorization", authorization),
            ]
            if let topic = request.topic { list.append(("Topic", topic)) }
            headers = list
            memo.headers = (request.ttl, request.urgency, request.topic, authorization, list)
        }
        return .success(HTTPClientRequest(
            url: request.endpoint, method: "POST", headers: headers, body: body, timeout: settings.requestTimeout,
            pinnedAddresses: settings.pinnedAddresses, maxResponseBytes: settings.maxResponseBytes, peerFilter: allowPrivate ? nil : HTTPClientRequest.publicPeersOnly,
            httpVersion: endpoint.target.scheme == "https" ? .http2 : .negotiated, responseHeaders: Self.responseHeaders))
    }

    static let responseHeaders = ["Retry-After", "Location"]

    /// `WebPushEndpoint.checked`, which depends on the URL's scheme and authority only once the
    /// whole URL is short enough and free of spaces and control characters: so endpoints of the
    /// origin just checked take its answer, and only the first of an origin is parsed.
    private func checkedEndpoint(_ url: String, memo: inout Memo) -> Result<WebPushEndpoint, WebPushEndpoint.Problem> {
        let utf8 = url.utf8
        guard utf8.count <= WebhookURL.maxLength, !utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
              let prefixEnd = Self.authorityEnd(url) else {
            return WebPushEndpoint.checked(url, hosts: hosts, allowPrivate: allowPrivate)
        }
        let prefix = url[..<prefixEnd]
        if let known = memo.endpoint, known.prefix.utf8.elementsEqual(prefix.utf8) { return known.checked }
        let checked = WebPushEndpoint.checked(url, hosts: hosts, allowPrivate: allowPrivate)
        memo.endpoint = (prefix, checked)
        return checked
    }

    /// Where the authority of `scheme://authority[/?#…]` ends; nil with no `://`.
    static func authorityEnd(_ url: String) -> String.Index? {
        let utf8 = url.utf8
        var index = utf8.startIndex
        // `://`: the first `:` must be followed by `//`.
        while index != utf8.endIndex, utf8[index] != UInt8(ascii: ":") { index = utf8.index(after: index) }
        guard index != utf8.endIndex else { return nil }
        for expected in [UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "/")] {
            guard index != utf8.endIndex, utf8[index] == expected else { return nil }
            index = utf8.index(after: index)
        }
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            index = utf8.index(after: index)
        }
        return index
    }
}
