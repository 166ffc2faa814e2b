import CMicroHTTPD
import Foundation

/// An HTTP/1.1 server over libmicrohttpd. Requests are read on MHD's threads, answered by the
/// responder on a Swift task while the connection is suspended, then written by MHD.
package final class HTTPServer: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder

    enum Phase {
        case idle
        case running
        /// Quiesced: no new connections; responses ask clients to close.
        case draining
        /// Past the grace period: new requests get 503 instead of being suspended.
        case stopping
        case stopped
    }

    struct State {
        var phase = Phase.idle
        var daemon: OpaquePointer?
        var port: UInt16 = 0
        /// Suspended connections waiting for the responder, so shutdown can resume leftovers.
        var suspended: [ObjectIdentifier: RequestContext] = [:]
        /// The last message from MHD's error log, for start errors.
        var lastError: String?
    }

    // Never held while calling MHD functions that MHD threads could wait on, except
    // suspend/resume, which MHD never calls us back under.
    let state = Locked(State())
    private let inFlight = Locked(0)

    package init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
    }

    deinit {
        // Tasks retain the server while suspended, so no connection can be suspended here.
        if let daemon = state.withLock({ $0.daemon }) {
            MHD_stop_daemon(daemon)
        }
    }

    /// The bound port; valid after `start()`.
    package var port: UInt16 {
        state.withLock { $0.port }
    }

    /// Requests read but not yet fully answered.
    package var inFlightRequests: Int {
        inFlight.withLock { $0 }
    }

    /// Binds and starts serving. Call once; a stopped server cannot be restarted.
    package func start() throws {
        try state.withLock { state in
            guard state.phase == .idle else { throw HTTPServerError("an HTTPServer can be started only once") }
        }
        let daemon = try startDaemon()
        state.withLock { state in
            state.daemon = daemon
            state.port = openpush_mhd_bind_port(daemon)
            state.phase = .running
        }
    }

    private func startDaemon() throws -> OpaquePointer {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var resolved: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(configuration.host, String(configuration.port), &hints, &resolved)
        guard status == 0, let address = resolved else {
            throw HTTPServerError("cannot resolve host \(configuration.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(resolved) }

        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
        if address.pointee.ai_family == AF_INET6 {
            flags |= MHD_USE_IPv6.rawValue
        }
        let server = Unmanaged.passUnretained(self).toOpaque()
        var options: [any CVarArg] = [
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(clamping: configuration.connectionTimeout),
            MHD_OPTION.NOTIFY_COMPLETED.rawValue,
            unsafeBitCast(requestCompleted as MHD_RequestCompletedCallback, to: OpaquePointer.self), OpaquePointer(server),
            MHD_OPTION.EXTERNAL_LOGGER.rawValue,
            unsafeBitCast(logMessage as MHD_LogCallback, to: OpaquePointer.self), OpaquePointer(server),
            MHD_OPTION.SOCK_ADDR.rawValue, OpaquePointer(address.pointee.ai_addr!),
            // Keep the path as sent: the router splits on '/' before decoding each segment, so an
            // encoded "%2F" stays inside one parameter and nothing is decoded twice.
            MHD_OPTION.UNESCAPE_CALLBACK.rawValue,
            unsafeBitCast(keepEscaped as UnescapeCallback, to: OpaquePointer.self), OpaquePointer(server),
        ]
        if configuration.threadPoolSize > 1 {
            options += [MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(clamping: configuration.threadPoolSize)]
        }
        options.append(MHD_OPTION.END.rawValue)

        let daemon = withVaList(options) { arguments in
            MHD_start_daemon_va(flags, configuration.port, nil, nil, accessHandler, server, arguments)
        }
        guard let daemon else {
            let reason = state.withLock { $0.lastError } ?? "libmicrohttpd refused to start"
            throw HTTPServerError("cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
        return daemon
    }

    /// Stops accepting connections, waits up to `shutdownGrace` for in-flight requests, then stops
    /// the daemon. Idempotent; concurrent callers return once it is stopped.
    package func shutdown() async {
        let daemon: OpaquePointer? = state.withLock { state in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                return nil
            case .running:
                state.phase = .draining
                return state.daemon
            case .draining, .stopping, .stopped:
                return nil
            }
        }
        guard let daemon else {
            while state.withLock({ $0.phase != .stopped }) {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return
        }

        // Closing the listening socket makes new connections fail fast instead of queueing.
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }

        let deadline = ContinuousClock.now.advanced(by: configuration.shutdownGrace)
        while inFlightRequests > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }

        // MHD_stop_daemon panics on suspended connections: answer the leftovers with 503.
        state.withLock { state in
            state.phase = .stopping
            for context in state.suspended.values {
                context.response = HTTPResponse(status: 503)
                MHD_resume_connection(context.connection)
            }
            state.suspended.removeAll()
        }
        // Stopping joins MHD's threads; keep that off the cooperative pool.
        let handle = DaemonHandle(daemon: daemon)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                MHD_stop_daemon(handle.daemon)
                continuation.resume()
            }
        }
        state.withLock { state in
            state.daemon = nil
            state.phase = .stopped
        }
    }

    // MARK: Request lifecycle, called from the callbacks

    func requestStarted() {
        inFlight.withLock { $0 += 1 }
    }

    func requestFinished() {
        inFlight.withLock { $0 -= 1 }
    }

    /// Suspends the connection and runs the responder on a task. Returns false once stopping,
    /// when the caller must answer at once because the daemon is about to go away.
    func dispatch(_ context: RequestContext) -> Bool {
        var request = context.request
        let tooLarge = context.bodyTooLarge
        if !tooLarge { request.body = context.body }
        context.body = []
        context.dispatched = true
        let suspended = state.withLock { state in
            guard state.phase == .running || state.phase == .draining else { return false }
            MHD_suspend_connection(context.connection)
            state.suspended[ObjectIdentifier(context)] = context
            return true
        }
        guard suspended else { return false }
        let responder = self.responder
        Task {
            var response: HTTPResponse
            if tooLarge {
                response = await responder.bodyTooLarge(request)
                response.status = 413
            } else {
                response = await responder.respond(to: request)
            }
            self.resume(context, with: response)
        }
        return true
    }

    private func resume(_ context: RequestContext, with response: HTTPResponse) {
        state.withLock { state in
            // Gone if shutdown already answered it with 503.
            guard state.suspended.removeValue(forKey: ObjectIdentifier(context)) != nil else { return }
            context.response = response
            MHD_resume_connection(context.connection)
        }
    }

    /// Suspends a connection whose streamed body waits for its next piece (called from the
    /// content reader). Registered like a dispatched request, so shutdown resumes it; false once
    /// stopping, when the stream must end at once.
    func suspendStream(_ context: RequestContext) -> Bool {
        state.withLock { state in
            guard state.phase == .running || state.phase == .draining else { return false }
            MHD_suspend_connection(context.connection)
            state.suspended[ObjectIdentifier(context)] = context
            return true
        }
    }

    /// Resumes a streaming connection once its next piece (or its end) is there.
    func resumeStream(_ context: RequestContext) {
        state.withLock { state in
            // Gone if shutdown already resumed it; the reader then ends the stream.
            guard state.suspended.removeValue(forKey: ObjectIdentifier(context)) != nil else { return }
            MHD_resume_connection(context.connection)
        }
    }

    /// Headers the server adds after the responder.
    func finalize(_ response: inout HTTPResponse, for context: RequestContext) {
        response.headers.replaceOrAdd(name: "X-Request-Id", value: context.request.requestID)
        if state.withLock({ $0.phase != .running }) {
            response.headers.replaceOrAdd(name: "Connection", value: "close")
        }
    }

    func recordError(_ message: String) {
        state.withLock { $0.lastError = message }
    }
}

/// Carries the daemon pointer to the thread that stops it.
private struct DaemonHandle: @unchecked Sendable {
    let daemon: OpaquePointer
}
