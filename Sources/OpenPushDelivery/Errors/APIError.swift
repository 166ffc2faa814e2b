/// An error that knows its HTTP status. The body shape is not the error's business: it belongs
/// to the route family that answers (see `RouteFamily`).
package struct APIError: Error, Sendable, Equatable {
    package var status: Int
    /// One or more human-readable problems, in a stable order.
    package var messages: [String]
    /// Extra response headers, such as `Retry-After`.
    package var headers: [String: String]

    package init(status: Int, messages: [String], headers: [String: String] = [:]) {
        precondition(!messages.isEmpty, "an API error needs at least one message")
        self.status = status
        self.messages = messages
        self.headers = headers
    }

    package init(status: Int, _ message: String, headers: [String: String] = [:]) {
        self.init(status: status, messages: [message], headers: headers)
    }

    package static func badRequest(_ message: String) -> APIError { APIError(status: 400, message) }
    package static func notFound(_ message: String) -> APIError { APIError(status: 404, message) }
}
