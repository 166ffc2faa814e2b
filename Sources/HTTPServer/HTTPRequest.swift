/// A complete request as the responder sees it; the body is already read.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The path as sent (still percent-encoded), without the query string; the router decodes
    /// each segment after splitting, so `%2F` never splits a parameter.
    public var path: String
    /// Query arguments, percent-decoded; the last value of a repeated name wins.
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Echoed as `X-Request-Id` on the response.
    public var requestID: String
    /// Filled from the router match.
    public var pathParameters: [String: String]
    public var remoteAddress: String?

    public init(
        method: HTTPMethod,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        requestID: String = RequestID.generate(),
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.requestID = requestID
        self.pathParameters = [:]
        self.remoteAddress = remoteAddress
    }
}
