import CNghttp2

// nghttp2 callbacks as free C functions, each recovering the session from the unretained
// user-data pointer: the session object owns the nghttp2 session and outlives every callback.

extension HTTP2ServerSession {
    func installServerCallbacks(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
    }
}

private func server(_ userData: UnsafeMutableRawPointer?) -> HTTP2ServerSession {
    Unmanaged<HTTP2ServerSession>.fromOpaque(userData!).takeUnretainedValue()
}

private func onBeginHeaders(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
          frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
    let streamID = frame.pointee.hd.stream_id
    let owner = server(userData)
    owner.partial[streamID] = HTTP2ServerSession.Request(streamID: streamID)
    owner.openStreams.insert(streamID)
    return 0
}

private func onHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
    _ name: UnsafePointer<UInt8>?, _ nameLength: Int, _ value: UnsafePointer<UInt8>?, _ valueLength: Int,
    _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    let field = HTTP2Header(
        name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
        value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
    server(userData).partial[frame.pointee.hd.stream_id]?.headers.append(field)
    return 0
}

private func onDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32,
    _ data: UnsafePointer<UInt8>?, _ length: Int, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    server(userData).partial[streamID]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func onFrame(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let header = frame?.pointee.hd else { return 0 }
    let isRequestPart = UInt32(header.type) == NGHTTP2_HEADERS.rawValue || UInt32(header.type) == NGHTTP2_DATA.rawValue
    guard isRequestPart, header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 else { return 0 }
    let owner = server(userData)
    if let request = owner.partial.removeValue(forKey: header.stream_id) {
        owner.completed.append(request)
    }
    return 0
}

private func onStreamClose(
    _ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    let owner = server(userData)
    owner.partial[streamID] = nil
    owner.openStreams.remove(streamID)
    owner.responseBodies[streamID] = nil
    return 0
}

/// Data provider: copies the next slice of the stream's response body into nghttp2's frame buffer.
func readResponseBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ dataFlags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    let owner = server(userData)
    guard let (bytes, offset) = owner.responseBodies[streamID], let buffer else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let count = min(length, bytes.count - offset)
    bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: count) }
    if offset + count == bytes.count {
        dataFlags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        owner.responseBodies[streamID] = nil
    } else {
        owner.responseBodies[streamID] = (bytes, offset + count)
    }
    return count
}
