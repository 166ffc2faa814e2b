/// A request that got no answer from APNs. Worth retrying later (the same `apns-id` keeps a
/// retry recognisable), but for a request that could never be sent as it is (`isPermanent`);
/// a rejection is never one of these but an `APNSResponse`.
package struct APNSTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    package struct Kind: RawRepresentable, Sendable, Hashable {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// DNS, TCP or TLS failed before HTTP/2 was up.
        package static let connectFailed = Kind(rawValue: "connect_failed")
        /// The connection broke, or the stream was reset, while the request was out.
        package static let connectionLost = Kind(rawValue: "connection_lost")
        /// No answer within the configured request timeout.
        package static let timeout = Kind(rawValue: "timeout")
        /// The client was shut down.
        package static let shutdown = Kind(rawValue: "shutdown")
        /// The request could not be signed or encoded (e.g. the JWT).
        package static let requestFailed = Kind(rawValue: "request_failed")
        /// A header value HTTP/2 cannot carry (a control or non-ASCII character): the request
        /// was refused before it reached a connection, which it could otherwise have reset.
        package static let invalidHeader = Kind(rawValue: "invalid_header")
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The same request would fail the same way on every try.
    package var isPermanent: Bool { kind == .invalidHeader }

    package var description: String { "\(kind.rawValue): \(message)" }
}
