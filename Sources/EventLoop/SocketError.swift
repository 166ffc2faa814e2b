/// Why a socket or a name lookup failed: before the connection was up (`connectFailed`) or
/// after (`connectionLost`). A client turns it into its own error, keeping the message.
package struct SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// DNS, TCP or TLS failed before the connection was up.
        case connectFailed
        /// The connection broke while it was in use.
        case connectionLost
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
