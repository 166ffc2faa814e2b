/// A complete request as the responder sees it; the body is already read.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The path as sent (still percent-encoded), without the query string; the router decodes
    /// each segment after splitting, so `%2F` never splits a parameter.
    package var path: String
    /// Query arguments, percent-decoded; the last value of a repeated name wins.
    package var query: [String: String]
    /// Every value of each query name, in order: lists sent as repeated names (`ids=a&ids=b`,
    /// OpenAPI's `multi` format).
    package var queryValues: [String: [String]]
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// Echoed as `X-Request-Id` on the response.
    package var requestID: String
    /// Filled from the router match.
    package var pathParameters: [String: String]
    package var remoteAddress: String?

    package init(
        method: HTTPMethod,
        path: String,
        query: [String: String] = [:],
        queryValues: [String: [String]]? = nil,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        requestID: String = RequestID.generate(),
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.queryValues = queryValues ?? query.mapValues { [$0] }
        self.headers = headers
        self.body = body
        self.requestID = requestID
        self.pathParameters = [:]
        self.remoteAddress = remoteAddress
    }
}
