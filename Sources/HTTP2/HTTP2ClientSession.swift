import CNghttp2

/// An nghttp2 client session driven through memory buffers: the owner writes `pendingOutput()`
/// to the socket and feeds what it reads to `receive(_:)`. nghttp2 never touches the socket,
/// so no send callback is needed (`nghttp2_session_send` crashes without one).
///
/// Not thread-safe: the owner serialises all calls, e.g. on one connection task.
package final class HTTP2ClientSession {
    private var session: OpaquePointer!
    var streams: [Int32: HTTP2StreamState] = [:]
    /// Events produced by callbacks during one `receive`; handed out and reset at its end.
    var events: [HTTP2Event] = []

    /// Defaults for an APNs-style client: no server push, and large windows so responses
    /// never stall on flow control.
    package static let defaultSettings: [HTTP2Setting] = [
        .enablePush(false),
        .initialWindowSize(1 << 24),
    ]
    private static let connectionWindowSize: Int32 = 1 << 24

    /// Creates the session and queues the client SETTINGS frame; `settings` override the
    /// defaults with the same identifier.
    package init(settings: [HTTP2Setting] = []) throws {
        var callbacks: OpaquePointer?
        try Self.check(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        // The session copies the callbacks, so the table can go at once.
        defer { nghttp2_session_callbacks_del(callbacks) }
        installClientCallbacks(callbacks)

        var created: OpaquePointer?
        try Self.check(
            nghttp2_session_client_new(&created, callbacks, Unmanaged.passUnretained(self).toOpaque()),
            "nghttp2_session_client_new")
        session = created

        var merged = Self.defaultSettings.filter { setting in
            !settings.contains { $0.identifier == setting.identifier }
        }
        merged.append(contentsOf: settings)
        let entries = merged.map {
            nghttp2_settings_entry(settings_id: Int32($0.identifier), value: $0.value)
        }
        try Self.check(
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count),
            "nghttp2_submit_settings")
        // SETTINGS_INITIAL_WINDOW_SIZE covers streams only; the connection window needs its own update.
        try Self.check(
            nghttp2_session_set_local_window_size(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindowSize),
            "nghttp2_session_set_local_window_size")
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// Queues a request; the body is sent from a per-stream buffer as flow control allows.
    /// Pseudo-headers (`:method`, `:scheme`, `:authority`, `:path`) must come first.
    /// Returns the stream id. If the peer's concurrency limit is reached, nghttp2 holds the
    /// request until a stream closes.
    /// `unindexed`: header names whose values are never added to HPACK's dynamic tables, for
    /// values that differ on every request.
    package func submitRequest(headers: [(name: String, value: String)], body: [UInt8], unindexed: [String] = []) throws -> Int32 {
        let state = HTTP2StreamState(requestBody: body)
        let streamID = HTTP2NameValues.with(headers, unindexed: unindexed) { nameValues in
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: readRequestBody)
            // An empty body goes as HEADERS with END_STREAM: no data provider.
            return body.isEmpty
                ? nghttp2_submit_request(session, nil, nameValues.baseAddress, nameValues.count, nil, nil)
                : nghttp2_submit_request(session, nil, nameValues.baseAddress, nameValues.count, &provider, nil)
        }
        guard streamID > 0 else { throw HTTP2Error.nghttp2(Int(streamID), "nghttp2_submit_request") }
        // The body is read only during pendingOutput(), so registering after submit is in time.
        streams[streamID] = state
        return streamID
    }

    /// Bytes in the HPACK dynamic table of the headers this session sends (RFC 7541 sizes).
    package var sentHeaderTableSize: Int { Int(nghttp2_session_get_hd_deflate_dynamic_table_size(session)) }

    /// Everything nghttp2 wants to write now; empty when there is nothing.
    package func pendingOutput() throws -> [UInt8] {
        try drainOutput(of: session)
    }

    /// Processes bytes read from the socket and returns what they meant. Afterwards call
    /// `pendingOutput()`: receiving can queue SETTINGS/PING acks and WINDOW_UPDATEs.
    package func receive(_ bytes: [UInt8]) throws -> [HTTP2Event] {
        let consumed = bytes.withUnsafeBufferPointer { buffer in
            nghttp2_session_mem_recv(session, buffer.baseAddress, buffer.count)
        }
        let produced = events
        events = []
        if consumed < 0 { throw HTTP2Error.nghttp2(consumed, "nghttp2_session_mem_recv") }
        return produced
    }

    package func submitPing() throws {
        try Self.check(nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil), "nghttp2_submit_ping")
    }

    /// Queues RST_STREAM(CANCEL) for a request the caller gave up on (a timeout); the stream
    /// then closes, reported as `streamReset` once the frame is sent.
    package func resetStream(_ streamID: Int32) throws {
        try Self.check(
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue),
            "nghttp2_submit_rst_stream")
    }

    /// Queues a GOAWAY(NO_ERROR) for a graceful shutdown; open streams may still finish.
    package func submitGoAway() throws {
        let lastStreamID = nghttp2_session_get_last_proc_stream_id(session)
        try Self.check(
            nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, NGHTTP2_NO_ERROR.rawValue, nil, 0),
            "nghttp2_submit_goaway")
    }

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS (nghttp2 assumes 100 until the peer says).
    package var remoteMaxConcurrentStreams: UInt32 {
        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
    }

    /// False once the session is finished (e.g. after GOAWAY both ways with no open streams).
    package var wantsRead: Bool { nghttp2_session_want_read(session) != 0 }
    package var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    /// Requests submitted and not yet closed.
    package var openStreamCount: Int { streams.count }

    private static func check(_ result: Int32, _ context: String) throws {
        if result != 0 { throw HTTP2Error.nghttp2(Int(result), context) }
    }
}
