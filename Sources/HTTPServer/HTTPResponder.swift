/// The application behind the server.
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse
    /// Answer for a body over the limit; `request.body` is empty. The server sends it with status 413 regardless.
    func bodyTooLarge(_ request: HTTPRequest) async -> HTTPResponse
}

extension HTTPResponder {
    package func bodyTooLarge(_ request: HTTPRequest) async -> HTTPResponse {
        HTTPResponse(status: 413)
    }
}
