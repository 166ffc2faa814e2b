extension HTTP2ServerSession {
    /// A complete request as the server received it.
    public struct Request: Sendable, Equatable {
        public var streamID: Int32
        /// Every field in arrival order, pseudo-headers (`:method`, `:path`, …) included.
        public var headers: [HTTP2Header]
        public var body: [UInt8]

        public init(streamID: Int32, headers: [HTTP2Header] = [], body: [UInt8] = []) {
            self.streamID = streamID
            self.headers = headers
            self.body = body
        }

        /// The first value of a field; names are lower case on HTTP/2.
        public func value(_ name: String) -> String? {
            headers.first { $0.name == name }?.value
        }

        public var method: String? { value(":method") }
        public var path: String? { value(":path") }
    }
}
