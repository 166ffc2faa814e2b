/// Why the server could not start, in libmicrohttpd's words where it gave any.
package struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
