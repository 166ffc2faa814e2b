import CNghttp2

/// A failure reported by nghttp2, with its error code and text.
package struct HTTP2Error: Error, Sendable, CustomStringConvertible {
    /// nghttp2's negative error code (`nghttp2_error`), or 0 for errors raised by this wrapper.
    package var code: Int32
    package var message: String

    package init(code: Int32 = 0, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { code == 0 ? message : "\(message) (nghttp2 \(code))" }

    static func nghttp2(_ code: Int, _ context: String) -> HTTP2Error {
        let code = Int32(truncatingIfNeeded: code)
        return HTTP2Error(code: code, message: "\(context): \(String(cString: nghttp2_strerror(code)))")
    }
}
