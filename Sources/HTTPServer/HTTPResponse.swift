package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// A body produced while it is sent; when set, `body` is ignored.
    package var stream: HTTPBodyStream?

    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package init(status: Int, headers: HTTPHeaders = [:], stream: HTTPBodyStream) {
        self.init(status: status, headers: headers)
        self.stream = stream
    }
}
