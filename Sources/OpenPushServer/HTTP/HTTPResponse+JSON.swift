package import HTTPServer
package import OpenPushCore
package import OpenPushDelivery

extension HTTPResponse {
    /// A JSON response. Bodies are built from `JSONValue` so key order is what the caller wrote.
    package static func json(_ value: JSONValue, status: Int = 200, headers: [String: String] = [:]) -> HTTPResponse {
        var response = HTTPResponse(status: status, body: value.serializedBytes)
        response.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            response.headers.add(name: name, value: value)
        }
        return response
    }

    package static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        var response = HTTPResponse(status: status, body: Array(text.utf8))
        response.headers.add(name: "Content-Type", value: contentType)
        return response
    }

    /// An error in the shape its route family's clients parse.
    package static func error(_ error: APIError, family: RouteFamily) -> HTTPResponse {
        .json(family.errorBody(error.messages), status: error.status, headers: error.headers)
    }
}
