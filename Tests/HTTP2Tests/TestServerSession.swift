import CNghttp2

/// A request as the test server saw it.
struct ReceivedRequest: Equatable {
    var streamID: Int32
    var headers: [HTTP2TestHeader]
    var body: [UInt8]

    func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

struct HTTP2TestHeader: Equatable {
    var name: String
    var value: String
}

/// What the test server answers; `nil` from the handler leaves the stream open.
struct TestResponse {
    var status: Int
    var headers: [(String, String)] = []
    var body: [UInt8] = []
}

/// A minimal nghttp2 server session for pairing with `HTTP2ClientSession` in memory.
/// Collects complete requests and answers each through `handler`.
final class TestServerSession {
    private var session: OpaquePointer!
    fileprivate var partial: [Int32: ReceivedRequest] = [:]
    fileprivate var responseBodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    private(set) var requests: [ReceivedRequest] = []
    var handler: (ReceivedRequest) -> TestResponse?

    init(settings: [(id: nghttp2_settings_id, value: UInt32)] = [],
         handler: @escaping (ReceivedRequest) -> TestResponse? = { _ in TestResponse(status: 200) }) {
        self.handler = handler
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
        submitSettings(settings)
    }

    deinit {
        nghttp2_session_del(session)
    }

    func submitSettings(_ settings: [(id: nghttp2_settings_id, value: UInt32)]) {
        let entries = settings.map { nghttp2_settings_entry(settings_id: Int32($0.id.rawValue), value: $0.value) }
        precondition(nghttp2_submit_settings(session, 0, entries, entries.count) == 0)
    }

    func submitGoAway(lastStreamID: Int32, errorCode: UInt32 = NGHTTP2_NO_ERROR.rawValue) {
        precondition(nghttp2_submit_goaway(session, 0, lastStreamID, errorCode, nil, 0) == 0)
    }

    func submitReset(streamID: Int32, errorCode: UInt32) {
        precondition(nghttp2_submit_rst_stream(session, 0, streamID, errorCode) == 0)
    }

    func respond(streamID: Int32, with response: TestResponse) {
        let headers = [(":status", String(response.status))] + response.headers
        // One flat buffer for all names and values; nghttp2 copies them during submit.
        var storage = headers.flatMap { Array($0.0.utf8) + Array($0.1.utf8) }
        let result: Int32 = storage.withUnsafeMutableBufferPointer { buffer in
            var nameValues: [nghttp2_nv] = []
            var cursor = buffer.baseAddress!
            for (name, value) in headers {
                let nameLength = name.utf8.count, valueLength = value.utf8.count
                nameValues.append(nghttp2_nv(name: cursor, value: cursor + nameLength,
                                             namelen: nameLength, valuelen: valueLength, flags: 0))
                cursor += nameLength + valueLength
            }
            if response.body.isEmpty {
                return nghttp2_submit_response(session, streamID, nameValues, nameValues.count, nil)
            }
            responseBodies[streamID] = (response.body, 0)
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: serverReadBody)
            return nghttp2_submit_response(session, streamID, nameValues, nameValues.count, &provider)
        }
        precondition(result == 0, "nghttp2_submit_response: \(result)")
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

    func receive(_ bytes: [UInt8]) {
        let consumed = nghttp2_session_mem_recv(session, bytes, bytes.count)
        precondition(consumed == bytes.count, "server mem_recv: \(consumed)")
    }

    fileprivate func requestComplete(streamID: Int32) {
        guard let request = partial.removeValue(forKey: streamID) else { return }
        requests.append(request)
        if let response = handler(request) { respond(streamID: streamID, with: response) }
    }
}

private func server(_ userData: UnsafeMutableRawPointer?) -> TestServerSession {
    Unmanaged<TestServerSession>.fromOpaque(userData!).takeUnretainedValue()
}

private func serverBeginHeaders(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    let streamID = frame!.pointee.hd.stream_id
    server(userData).partial[streamID] = ReceivedRequest(streamID: streamID, headers: [], body: [])
    return 0
}

private func serverHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
    _ name: UnsafePointer<UInt8>?, _ nameLength: Int, _ value: UnsafePointer<UInt8>?, _ valueLength: Int,
    _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    let header = HTTP2TestHeader(
        name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
        value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
    server(userData).partial[frame!.pointee.hd.stream_id]?.headers.append(header)
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
