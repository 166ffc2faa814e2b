import CNghttp2

/// An nghttp2 server session driven through memory buffers, the mirror of
/// `HTTP2ClientSession`: the owner feeds what it reads from the socket to `receive(_:)`, answers
/// the complete requests it returns with `respond(…)`, and writes `pendingOutput()`.
///
/// Not thread-safe: the owner serialises all calls, e.g. on one connection thread.
package final class HTTP2ServerSession {
    private var session: OpaquePointer!
    /// Requests whose headers have begun and whose END_STREAM has not arrived.
    var partial: [Int32: Request] = [:]
    /// Requests completed by callbacks during one `receive`; handed out and reset at its end.
    var completed: [Request] = []
    /// Streams the client opened that have not closed: only these can be answered.
    var openStreams: Set<Int32> = []
    /// Response bodies still being sent, with how far each has gone.
    var responseBodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]

    /// What a server announces unless told otherwise: APNs' stream limit once a provider
    /// token is accepted.
    package static let defaultSettings: [HTTP2Setting] = [.maxConcurrentStreams(1000)]

    /// Creates the session and queues the server's SETTINGS frame (the server preface).
    package init(settings: [HTTP2Setting] = HTTP2ServerSession.defaultSettings) throws {
        var callbacks: OpaquePointer?
        try Self.check(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        // The session copies the callbacks, so the table can go at once.
        defer { nghttp2_session_callbacks_del(callbacks) }
        installServerCallbacks(callbacks)

        var created: OpaquePointer?
        try Self.check(
            nghttp2_session_server_new(&created, callbacks, Unmanaged.passUnretained(self).toOpaque()),
            "nghttp2_session_server_new")
        session = created
        try submitSettings(settings)
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// Processes bytes read from the socket and returns the requests they completed, in order.
    /// Throws on a connection error (e.g. a client that does not speak HTTP/2); the owner then
    /// writes `pendingOutput()` (often a GOAWAY) and closes.
    package func receive(_ bytes: [UInt8]) throws -> [Request] {
        let consumed = bytes.withUnsafeBufferPointer { buffer in
            nghttp2_session_mem_recv(session, buffer.baseAddress, buffer.count)
        }
        let produced = completed
        completed = []
        if consumed < 0 { throw HTTP2Error.nghttp2(consumed, "nghttp2_session_mem_recv") }
        return produced
    }

    /// Everything nghttp2 wants to write now; empty when there is nothing.
    package func pendingOutput() throws -> [UInt8] {
        try drainOutput(of: session)
    }

    /// Queues the response to a request. Returns false, and does nothing, when the stream is
    /// already gone (the client reset it, or a GOAWAY refused it).
    @discardableResult
    package func respond(streamID: Int32, status: Int, headers: [HTTP2Header] = [], body: [UInt8] = []) throws -> Bool {
        guard openStreams.contains(streamID) else { return false }
        var fields: [(name: String, value: String)] = [(":status", String(status))]
        fields.reserveCapacity(headers.count + 1)
        for header in headers { fields.append((header.name, header.value)) }
        let result = HTTP2NameValues.with(fields) { nameValues in
            if body.isEmpty {
                return nghttp2_submit_response(session, streamID, nameValues.baseAddress, nameValues.count, nil)
            }
            responseBodies[streamID] = (body, 0)
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readResponseBody)
            return nghttp2_submit_response(session, streamID, nameValues.baseAddress, nameValues.count, &provider)
        }
        if result != 0 {
            responseBodies[streamID] = nil
            throw HTTP2Error.nghttp2(Int(result), "nghttp2_submit_response")
        }
        return true
    }

    package func submitSettings(_ settings: [HTTP2Setting]) throws {
        let entries = settings.map { nghttp2_settings_entry(settings_id: Int32($0.identifier), value: $0.value) }
        try Self.check(
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count),
            "nghttp2_submit_settings")
    }

    /// Queues a GOAWAY: streams up to `lastStreamID` (default: the last one received) may
    /// still be answered; the client must retry the others elsewhere. Error code 0 is NO_ERROR.
    package func submitGoAway(lastStreamID: Int32? = nil, errorCode: UInt32 = 0) throws {
        try Self.check(
            nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID ?? lastProcessedStreamID, errorCode, nil, 0),
            "nghttp2_submit_goaway")
    }

    package func submitReset(streamID: Int32, errorCode: UInt32) throws {
        try Self.check(
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode),
            "nghttp2_submit_rst_stream")
    }

    /// The highest stream id the client opened so far.
    package var lastProcessedStreamID: Int32 { nghttp2_session_get_last_proc_stream_id(session) }

    /// False once the session is finished (after a GOAWAY with no stream left open, or a
    /// connection error): the owner flushes `pendingOutput()` and closes.
    package var wantsRead: Bool { nghttp2_session_want_read(session) != 0 }
    package var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    private static func check(_ result: Int32, _ context: String) throws {
        if result != 0 { throw HTTP2Error.nghttp2(Int(result), context) }
    }
}
