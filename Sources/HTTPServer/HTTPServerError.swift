/// Why the server could not start, in libmicrohttpd's words where it gave any.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
