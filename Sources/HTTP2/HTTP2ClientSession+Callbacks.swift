import CNghttp2

// nghttp2 callbacks as free C functions (a closure in main.swift would inherit @MainActor
// isolation and trap). Each recovers the session from the user-data pointer, which is
// unretained: the session object owns the nghttp2 session and outlives every callback.

extension HTTP2ClientSession {
    func installClientCallbacks(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
    }
}

private func client(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientSession {
    Unmanaged<HTTP2ClientSession>.fromOpaque(userData!).takeUnretainedValue()
}

private func onHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
    _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int,
    _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let stream = client(userData).streams[frame.pointee.hd.stream_id] else { return 0 }
    let name = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let value = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    if name == ":status" {
        let status = Int(value) ?? 0
        // Interim 1xx responses (100 Continue) precede the real one; drop them.
        stream.inInformationalHeaders = (100..<200).contains(status)
        if !stream.inInformationalHeaders { stream.status = status }
    } else if !name.hasPrefix(":"), !stream.inInformationalHeaders {
        stream.headers.append(HTTP2Header(name: name, value: value))
    }
    return 0
}

private func onDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32,
    _ data: UnsafePointer<UInt8>?, _ length: Int, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    client(userData).streams[streamID]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func onFrame(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let header = frame?.pointee.hd else { return 0 }
    let owner = client(userData)
    let isAck = header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
    switch UInt32(header.type) {
    case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
        if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
            owner.streams[header.stream_id]?.remoteEnded = true
        }
    case NGHTTP2_SETTINGS.rawValue where !isAck:
        owner.events.append(.settingsChanged(maxConcurrentStreams: owner.remoteMaxConcurrentStreams))
    case NGHTTP2_PING.rawValue where isAck:
        owner.events.append(.pingAck)
    case NGHTTP2_GOAWAY.rawValue:
        let goAway = frame!.pointee.goaway
        owner.events.append(.goAway(lastStreamID: goAway.last_stream_id, errorCode: goAway.error_code))
    default:
        break
    }
    return 0
}

private func onStreamClose(
    _ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    let owner = client(userData)
    guard let stream = owner.streams.removeValue(forKey: streamID) else { return 0 }
    // A complete response counts even if RST_STREAM(NO_ERROR or otherwise) follows it:
    // a server may reset after answering without reading the whole request.
    if stream.remoteEnded, let status = stream.status {
        owner.events.append(.response(streamID: streamID, status: status, headers: stream.headers, body: stream.body))
    } else {
        owner.events.append(.streamReset(streamID: streamID, errorCode: errorCode))
    }
    return 0
}

/// Data provider: copies the next slice of the stream's request body into nghttp2's frame buffer.
func readRequestBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ dataFlags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let stream = client(userData).streams[streamID], let buffer else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let count = min(length, stream.requestBody.count - stream.requestBodyOffset)
    stream.requestBody.withUnsafeBufferPointer { body in
        buffer.update(from: body.baseAddress! + stream.requestBodyOffset, count: count)
    }
    stream.requestBodyOffset += count
    if stream.requestBodyOffset == stream.requestBody.count {
        dataFlags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
    }
    return count
}
