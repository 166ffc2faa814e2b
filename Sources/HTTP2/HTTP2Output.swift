import CNghttp2

/// Drains `nghttp2_session_mem_send` until nghttp2 has nothing more to write: the bytes the
/// owner of a session (client or server) puts on its socket next.
func drainOutput(of session: OpaquePointer) throws -> [UInt8] {
    var output: [UInt8] = []
    while true {
        var chunk: UnsafePointer<UInt8>?
        let count = nghttp2_session_mem_send(session, &chunk)
        if count < 0 { throw HTTP2Error.nghttp2(count, "nghttp2_session_mem_send") }
        guard count > 0, let chunk else { return output }
        // The chunk is valid only until the next mem_send call: copy it now.
        output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
    }
}
