import CNghttp2

/// A request as the test server saw it.
struct H2Request: Sendable {
    var connection: Int
    var streamID: Int32
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    var path: String { value(":path") ?? "" }
    var deviceToken: String { String(path.dropFirst("/3/device/".count)) }
}

/// What the test server does with a complete request.
enum H2Reply: Sendable {
    case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
    /// Answers, then sends GOAWAY with this stream as the last: every later stream is refused.
    case respondThenGoAway(status: Int, headers: [(String, String)] = [])
    case reset(errorCode: UInt32)
    /// Leaves the stream open, unanswered.
    case ignore
    /// Closes the TCP connection without a word.
    case dropConnection
}

/// An nghttp2 server session driven through memory buffers (after `Tests/HTTP2Tests`'s
/// `TestServerSession`), counting open streams so tests can check the client's concurrency.
final class H2ServerSession {
    private var session: OpaquePointer!
    fileprivate var partial: [Int32: H2Request] = [:]
    fileprivate var responseBodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    fileprivate var openStreams = 0
    /// Streams open when each request began, and the limit advertised at that moment.
    private(set) var concurrencySamples: [(open: Int, limit: UInt32)] = []
    private(set) var advertisedLimit: UInt32
    private var goAwayLastStreamID: Int32?
    var dropRequested = false
    let connection: Int
    let handler: (H2Request) -> H2Reply
    /// Called after each answered request, e.g. to raise the limit.
    var afterResponse: (H2ServerSession) -> Void = { _ in }

    init(connection: Int, maxConcurrentStreams: UInt32, handler: @escaping (H2Request) -> H2Reply) {
        self.connection = connection
        self.handler = handler
        advertisedLimit = maxConcurrentStreams
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, serverBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, serverHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, serverDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, serverFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, serverStreamClose)
        var created: OpaquePointer?
        precondition(nghttp2_session_server_new(&created, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0)
        session = created
        submitMaxConcurrentStreams(maxConcurrentStreams)
    }

    deinit {
        nghttp2_session_del(session)
    }

    func submitMaxConcurrentStreams(_ limit: UInt32) {
        advertisedLimit = limit
        var entry = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit)
        precondition(nghttp2_submit_settings(session, 0, &entry, 1) == 0)
    }

    func pendingOutput() -> [UInt8] {
        var output: [UInt8] = []
        while true {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            precondition(count >= 0)
            guard count > 0 else { return output }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
        }
    }

    /// False when the client's bytes broke the protocol.
    func receive(_ bytes: [UInt8]) -> Bool {
        nghttp2_session_mem_recv(session, bytes, bytes.count) == bytes.count
    }

    fileprivate func requestComplete(streamID: Int32) {
        guard let request = partial.removeValue(forKey: streamID) else { return }
        // After our GOAWAY, later streams are not processed (the client retries them).
        if let last = goAwayLastStreamID, streamID > last { return }
        switch handler(request) {
        case .respond(let status, let headers, let body):
            respond(streamID: streamID, status: status, headers: headers, body: body)
            afterResponse(self)
        case .respondThenGoAway(let status, let headers):
            respond(streamID: streamID, status: status, headers: headers, body: [])
            goAwayLastStreamID = streamID
            precondition(nghttp2_submit_goaway(session, 0, streamID, NGHTTP2_NO_ERROR.rawValue, nil, 0) == 0)
        case .reset(let errorCode):
            precondition(nghttp2_submit_rst_stream(session, 0, streamID, errorCode) == 0)
        case .ignore:
            break
        case .dropConnection:
            dropRequested = true
        }
    }

    private func respond(streamID: Int32, status: Int, headers: [(String, String)], body: [UInt8]) {
        let all = [(":status", String(status))] + headers
        var storage = all.flatMap { Array($0.0.utf8) + Array($0.1.utf8) }
        let result: Int32 = storage.withUnsafeMutableBufferPointer { buffer in
            var nameValues: [nghttp2_nv] = []
            var cursor = buffer.baseAddress!
            for (name, value) in all {
                let nameLength = name.utf8.count, valueLength = value.utf8.count
                nameValues.append(nghttp2_nv(name: cursor, value: cursor + nameLength,
                                             namelen: nameLength, valuelen: valueLength, flags: 0))
                cursor += nameLength + valueLength
            }
            if body.isEmpty {
                return nghttp2_submit_response(session, streamID, nameValues, nameValues.count, nil)
            }
            responseBodies[streamID] = (body, 0)
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: serverReadBody)
            return nghttp2_submit_response(session, streamID, nameValues, nameValues.count, &provider)
        }
        precondition(result == 0, "nghttp2_submit_response: \(result)")
    }

    fileprivate func began(streamID: Int32) {
        openStreams += 1
        concurrencySamples.append((openStreams, advertisedLimit))
        partial[streamID] = H2Request(connection: connection, streamID: streamID, headers: [], body: [])
    }
}

private func server(_ userData: UnsafeMutableRawPointer?) -> H2ServerSession {
    Unmanaged<H2ServerSession>.fromOpaque(userData!).takeUnretainedValue()
}

private func serverBeginHeaders(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    server(userData).began(streamID: frame!.pointee.hd.stream_id)
    return 0
}

private func serverHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
    _ name: UnsafePointer<UInt8>?, _ nameLength: Int, _ value: UnsafePointer<UInt8>?, _ valueLength: Int,
    _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    let name = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let value = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    server(userData).partial[frame!.pointee.hd.stream_id]?.headers.append((name, value))
    return 0
}

private func serverDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32,
    _ data: UnsafePointer<UInt8>?, _ length: Int, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    server(userData).partial[streamID]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func serverFrame(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    let header = frame!.pointee.hd
    let isRequestPart = UInt32(header.type) == NGHTTP2_HEADERS.rawValue || UInt32(header.type) == NGHTTP2_DATA.rawValue
    if isRequestPart, header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
        server(userData).requestComplete(streamID: header.stream_id)
    }
    return 0
}

private func serverStreamClose(
    _ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    let owner = server(userData)
    owner.openStreams -= 1
    owner.partial[streamID] = nil
    owner.responseBodies[streamID] = nil
    return 0
}

private func serverReadBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ dataFlags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    let owner = server(userData)
    guard let (bytes, offset) = owner.responseBodies[streamID] else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let count = min(length, bytes.count - offset)
    bytes.withUnsafeBufferPointer { buffer!.update(from: $0.baseAddress! + offset, count: count) }
    owner.responseBodies[streamID] = (bytes, offset + count)
    if offset + count == bytes.count { dataFlags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}
