package import HTTPServer
package import OpenPushCore
package import OpenPushDelivery

/// What a route handler gets: the request, its family, and the process's services.
package struct RouteContext: Sendable {
    package var request: HTTPRequest
    package var family: RouteFamily
    package var services: Services
    package var logger: Logger

    package func pathParameter(_ name: String) -> String {
        // The router only calls a handler when every parameter of its template matched.
        request.pathParameters[name] ?? ""
    }

    /// The body as a JSON object: anything else is a `400` in the family's shape, and so is a
    /// NUL character anywhere in it (PostgreSQL can store none), named by where it is.
    package func jsonObject() throws(APIError) -> JSONObject {
        guard let value = try? JSONValue.parse(request.body), let object = value.objectValue else {
            throw APIError.badRequest("the request body must be a JSON object")
        }
        let nulProblems = NULCharacters.problems(in: object)
        if !nulProblems.isEmpty { throw APIError(status: 400, messages: nulProblems) }
        return object
    }
}

package typealias RouteHandler = @Sendable (RouteContext) async throws -> HTTPResponse
