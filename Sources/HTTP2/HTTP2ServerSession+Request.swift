extension HTTP2ServerSession {
    /// A complete request as the server received it.
    package struct Request: Sendable, Equatable {
        package var streamID: Int32
        /// Every field in arrival order, pseudo-headers (`:method`, `:path`, …) included.
        package var headers: [HTTP2Header]
        package var body: [UInt8]

        package init(streamID: Int32, headers: [HTTP2Header] = [], body: [UInt8] = []) {
            self.streamID = streamID
            self.headers = headers
            self.body = body
        }

        /// The first value of a field; names are lower case on HTTP/2.
        package func value(_ name: String) -> String? {
            headers.first { $0.name == name }?.value
        }

        package var method: String? { value(":method") }
        package var path: String? { value(":path") }
    }
}
