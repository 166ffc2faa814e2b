import Crypto
import EventLoop
import HTTP2
import OpenPushCore

/// One connection slot of a pool, as state of the event loop (no thread of its own): a
/// non-blocking socket (TLS or h2c), an `HTTP2ClientSession` driven through memory buffers,
/// and the `APNSConnectionStateMachine` that decides. Requests come from the pool's shared
/// queue, as many as the server's SETTINGS allow; outcomes go to each request's completion.
///
/// The loop calls `handle(_:)` when the socket is ready and `service(now:)` after that and
/// when a timer is due. Not thread-safe: the event loop's thread owns it.
final class APNSConnection {
    /// The socket's progress, below what the state machine sees (it sees `connecting` until
    /// the handshake is done and SETTINGS arrive).
    private enum Phase {
        case idle
        /// Waiting for the resolver thread.
        case resolving(deadline: Double)
        /// TCP connect in flight to one address; the others are tried next.
        case connecting(remaining: ArraySlice<AddressResolver.Address>, deadline: Double)
        case handshaking(deadline: Double)
        case open
    }

    private let index: Int
    unowned let pool: APNSConnectionPool
    private let context: APNSLoopContext
    private let shared: APNSConnectionPool.Shared

    private var machine: APNSConnectionStateMachine
    private var phase = Phase.idle
    private var socket: NonBlockingSocket?
    private var token: UInt64 = 0
    private var interest: Epoll.Interest = []
    private var session: HTTP2ClientSession?
    private var inFlight: [Int32: APNSPendingRequest] = [:]
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// TLS wants the socket writable before it can read on (a renegotiation or key update).
    private var readWantsWritable = false
    /// The last write (or handshake step) waits for writability rather than readability.
    private var writeWantsWritable = false
    /// Counted in `openConnections` (from the end of the handshake until closed).
    private var isCounted = false
    /// Backoff jitter from a cheap generator: the system one is a syscall.
    private var jitterState = UInt64.random(in: 1...UInt64.max)

    init(index: Int, pool: APNSConnectionPool, context: APNSLoopContext) {
        self.index = index
        self.pool = pool
        self.context = context
        shared = pool.shared
        machine = APNSConnectionStateMachine(configuration: pool.shared.configuration.stateMachineConfiguration)
    }

    var inFlightCount: Int { inFlight.count }

    // MARK: Driven by the loop

    /// Timers, connecting when there is work, new streams and writing.
    func service(now: Double) {
        switch phase {
        case .resolving(let deadline), .connecting(_, let deadline), .handshaking(let deadline):
            if now >= deadline {
                connectFailed(APNSTransportError(
                    .connectFailed, "cannot connect to \(shared.endpoint.authority): timed out after \(shared.configuration.connectTimeout) s"))
            } else if case .resolving = phase {
                resolveAndConnect(deadline: deadline)
            }
        case .idle, .open:
            break
        }
        perform(machine.tick(now: now, hasWork: !shared.queue.isEmpty, jitter: nextJitter()), lost: true)
        switch phase {
        case .open:
            openStreams()
            flush()
        case .handshaking:
            flush()  // the handshake advances inside the write of the client preface
        case .idle, .resolving, .connecting:
            break
        }
        updateInterest()
    }

    /// The socket is ready for `ready`.
    func handle(_ ready: Epoll.Interest) {
        switch phase {
        case .connecting:
            tcpConnected()
        case .open:
            if !ready.isDisjoint(with: [.readable, .hangUp, .error]) || (ready.contains(.writable) && readWantsWritable) {
                readAvailable()
            }
        case .idle, .resolving, .handshaking:
            break  // `service` writes, which is what the handshake needs
        }
    }

    /// Goes on reading where the last read stopped at its bound.
    func continueReading() {
        if case .open = phase { readAvailable() }
    }

    /// When `service` next has something to do; nil: only events.
    func nextDeadline(hasWork: Bool) -> Double? {
        var deadline = machine.nextDeadline(hasWork: hasWork)
        switch phase {
        case .resolving(let connectBy), .connecting(_, let connectBy), .handshaking(let connectBy):
            deadline = min(deadline ?? connectBy, connectBy)
        case .idle, .open:
            break
        }
        return deadline
    }

    /// Closes for good: what is in flight fails with `error`.
    func shutdown(_ error: APNSTransportError) {
        perform(machine.shutdown(), lost: true)
        closeSocket()
        for item in inFlight.values {
            shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
            item.complete(.failure(error))
        }
        inFlight = [:]
    }

    // MARK: Actions

    /// Runs a state-machine action. `lost`: the streams being returned may have reached the
    /// server, so it counts against the request's transport retries; a GOAWAY refusal does not.
    private func perform(_ action: APNSConnectionStateMachine.Action, lost: Bool) {
        switch action {
        case .none:
            break
        case .connect:
            connect()
        case .sendPing:
            try? session?.submitPing()
        case .retry(let streamIDs):
            giveBack(streamIDs, lost: lost)
        case .closeConnection(let streamIDs):
            giveBack(streamIDs, lost: lost)
            closeSocket()
        }
    }

    // MARK: Connecting

    private func connect() {
        shared.queue.setStatus(.connecting, of: index)
        resolveAndConnect(deadline: MonotonicClock.now() + shared.configuration.connectTimeout)
    }

    private func resolveAndConnect(deadline: Double) {
        let endpoint = shared.endpoint
        switch context.resolver.addresses(host: endpoint.host, port: endpoint.port, now: MonotonicClock.now()) {
        case .ready(let addresses):
            do throws(APNSTransportError) {
                try connectNext(addresses[...], deadline: deadline)
            } catch {
                connectFailed(error)
            }
        case .pending:
            phase = .resolving(deadline: deadline)
        case .failed(let error):
            connectFailed(APNSTransportError(error))
        }
    }

    /// Starts connecting to the first address that takes a connect; throws when none does.
    private func connectNext(_ addresses: ArraySlice<AddressResolver.Address>, deadline: Double) throws(APNSTransportError) {
        var remaining = addresses
        var lastError = "no address"
        while let address = remaining.popFirst() {
            do throws(SocketError) {
                let (opened, connected) = try NonBlockingSocket.connect(to: address)
                socket = opened
                interest = [.writable]
                token = context.register(self, descriptor: opened.descriptor, interest: interest)
                phase = .connecting(remaining: remaining, deadline: deadline)
                if connected { tcpConnected() }
                return
            } catch {
                lastError = error.message
            }
        }
        throw APNSTransportError(.connectFailed, "cannot connect to \(shared.endpoint.authority): \(lastError)")
    }

    private func tcpConnected() {
        guard case .connecting(let remaining, let deadline) = phase, let socket else { return }
        do throws(APNSTransportError) {
            do throws(SocketError) {
                try socket.finishConnect()
            } catch {
                dropSocket()
                guard !remaining.isEmpty else {
                    throw APNSTransportError(.connectFailed, "cannot connect to \(shared.endpoint.authority): \(error.message)")
                }
                return try connectNext(remaining, deadline: deadline)
            }
            guard let http2 = try? HTTP2ClientSession() else {
                throw APNSTransportError(.connectFailed, "cannot create an HTTP/2 session")
            }
            session = http2
            output = []
            outputOffset = 0
            readWantsWritable = false
            writeWantsWritable = false
            if shared.endpoint.usesTLS {
                guard let tlsContext = shared.tlsContext else {
                    throw APNSTransportError(.connectFailed, "no TLS context for \(shared.endpoint.authority)")
                }
                do throws(SocketError) {
                    try socket.startTLS(context: tlsContext, hostname: shared.endpoint.host, authority: shared.endpoint.authority)
                } catch {
                    throw APNSTransportError(error)
                }
                phase = .handshaking(deadline: MonotonicClock.now() + shared.configuration.connectTimeout)
            } else {
                established()
            }
            flush()
            updateInterest()
        } catch {
            connectFailed(error)
        }
    }

    /// TCP (and TLS) are up and the client preface is (or goes) out; SETTINGS are awaited.
    private func established() {
        phase = .open
        machine.connectSucceeded(now: MonotonicClock.now())
        shared.queue.setStatus(.up, of: index)
        isCounted = true
        shared.counters.openConnections.add(1, ordering: .relaxed)
        shared.counters.connectionsOpened.add(1, ordering: .relaxed)
        shared.logger.debug("APNs connection open", ["apns.endpoint": shared.endpoint.authority])
    }

    private func connectFailed(_ error: APNSTransportError) {
        shared.logger.warning("APNs connect failed: \(error.message)", ["apns.endpoint": shared.endpoint.authority])
        dropSocket()
        session = nil
        phase = .idle
        context.resolver.forget(host: shared.endpoint.host, port: shared.endpoint.port)
        machine.connectFailed(now: MonotonicClock.now(), jitter: nextJitter())
        shared.queue.connectFailed(index: index, error: error)
    }

    /// A failure of the socket: before the handshake is done a connect failure, after it a
    /// lost connection.
    private func failed(_ error: SocketError) {
        if case .open = phase {
            connectionLost(error.message)
        } else {
            connectFailed(APNSTransportError(.connectFailed, error.message))
        }
    }

    /// Closes the socket without touching streams or counters (nothing is open on it yet).
    private func dropSocket() {
        guard let socket else { return }
        context.unregister(token: token, descriptor: socket.descriptor)
        socket.close()
        self.socket = nil
        interest = []
    }

    private func closeSocket() {
        guard socket != nil else { return }
        dropSocket()
        session = nil
        phase = .idle
        output = []
        outputOffset = 0
        // Whatever the machine no longer tracks but still waits (none, normally) goes back too.
        giveBack(Array(inFlight.keys), lost: true)
        shared.queue.setStatus(.down, of: index)
        if isCounted {
            isCounted = false
            shared.counters.openConnections.subtract(1, ordering: .relaxed)
        }
    }

    private func connectionLost(_ reason: String) {
        shared.logger.debug("APNs connection lost: \(reason)", ["apns.endpoint": shared.endpoint.authority])
        perform(machine.connectionLost(now: MonotonicClock.now(), jitter: nextJitter()), lost: true)
        closeSocket()
    }

    private func updateInterest() {
        guard let socket else { return }
        let wanted: Epoll.Interest
        switch phase {
        case .idle, .resolving: return
        case .connecting: wanted = [.writable]
        case .handshaking: wanted = writeWantsWritable ? [.writable] : [.readable]
        case .open:
            // Not for output alone: a TLS write may wait for readability, and asking for
            // writability then would wake the loop for nothing until data comes.
            wanted = writeWantsWritable || readWantsWritable ? [.readable, .writable] : [.readable]
        }
        guard wanted != interest else { return }
        interest = wanted
        context.epoll.modify(socket.descriptor, token: token, interest: wanted)
    }

    /// Puts the requests of these streams back on the queue (or fails them when they have
    /// used up their retries or their time).
    private func giveBack(_ streamIDs: [Int32], lost: Bool) {
        var returned: [APNSPendingRequest] = []
        let now = MonotonicClock.now()
        for streamID in streamIDs {
            guard let item = inFlight.removeValue(forKey: streamID) else { continue }
            shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
            if lost { item.transportFailures += 1 }
            if item.transportFailures > shared.configuration.maxTransportRetries {
                item.complete(.failure(APNSTransportError(
                    .connectionLost, "the stream ended without a response \(item.transportFailures) times")))
            } else if item.deadline <= now {
                item.complete(.failure(APNSTransportError(.timeout, "no response before the request timeout")))
            } else {
                returned.append(item)
            }
        }
        shared.queue.requeue(returned)
    }

    // MARK: Reading

    private func readAvailable() {
        // Bounded, so a flood of responses on one connection cannot starve the others; the
        // loop comes back at once for the rest (TLS may hold it where epoll cannot see it).
        for _ in 0..<16 {
            guard let socket, let session else { return }
            // withUnsafeMutableBytes only rethrows untyped errors: carry the typed one out as a Result.
            let attempt = context.readBuffer.withUnsafeMutableBytes { buffer in
                Result { () throws(SocketError) in try socket.read(into: buffer) }
            }
            let result: NonBlockingSocket.IOResult
            switch attempt {
            case .success(let value): result = value
            case .failure(let error): return failed(error)
            }
            switch result {
            case .transferred(let count):
                readWantsWritable = false
                let now = MonotonicClock.now()
                machine.bytesReceived(now: now)
                let events: [HTTP2Event]
                do {
                    events = try session.receive(Array(context.readBuffer[0..<count]))
                } catch {
                    return connectionLost("HTTP/2: \(error)")
                }
                for event in events { handle(event, now: now) }
                if self.socket == nil { return }
            case .wouldBlock(let wantsWrite):
                readWantsWritable = wantsWrite
                return
            case .closed:
                return connectionLost("closed by the server")
            }
        }
        context.unfinishedReads.append(self)
    }

    private func handle(_ event: HTTP2Event, now: Double) {
        switch event {
        case .settingsChanged(let limit):
            machine.settingsReceived(maxConcurrentStreams: limit, now: now)
        case .response(let streamID, let status, let headers, let body):
            let action = machine.responseReceived(streamID, now: now)
            if let item = inFlight.removeValue(forKey: streamID) {
                shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
                finish(item, response: Self.response(status: status, headers: headers, body: body), now: now)
            }
            perform(action, lost: false)
        case .streamReset(let streamID, let errorCode):
            // REFUSED_STREAM means the server did not process it: free to retry.
            let refused = errorCode == 0x7
            perform(machine.streamReset(streamID, now: now, jitter: nextJitter()), lost: !refused)
        case .goAway(let lastStreamID, let errorCode):
            shared.logger.debug(
                "APNs GOAWAY", ["apns.last_stream_id": String(lastStreamID), "apns.error_code": String(errorCode)])
            perform(machine.goAwayReceived(lastStreamID: lastStreamID, now: now, jitter: nextJitter()), lost: false)
        case .pingAck:
            break
        }
    }

    /// A response is the request's outcome, except one `ExpiredProviderToken`, after which
    /// the request goes out again with a fresh token if the refresh floor allows one.
    private func finish(_ item: APNSPendingRequest, response: APNSResponse, now: Double) {
        pool.lastActivity = now
        if response.status == 403, response.reason == .expiredProviderToken, !item.refreshedToken,
           let fresh = try? shared.signer.refresh(rejected: item.sentJWT, now: shared.configuration.clock()),
           fresh.jwt != item.sentJWT {
            item.refreshedToken = true
            shared.queue.requeue([item])
            return
        }
        item.complete(.success(response))
    }

    static func response(status: Int, headers: [HTTP2Header], body: [UInt8]) -> APNSResponse {
        var response = APNSResponse(status: status)
        for header in headers {
            switch header.name {
            case "apns-id": response.apnsID = header.value
            case "apns-unique-id": response.apnsUniqueID = header.value
            case "apns-request-id": response.requestID = header.value
            case "apns-channel-id": response.channelID = header.value
            default: break
            }
        }
        if !body.isEmpty, let object = (try? JSONValue.parse(body))?.objectValue {
            response.reason = object["reason"]?.stringValue.map(APNSReason.init(rawValue:))
            response.timestamp = object["timestamp"]?.intValue
            if response.reason == nil { response.body = object }
        }
        return response
    }

    // MARK: Writing

    /// Takes as many queued requests as the server allows and submits them.
    private func openStreams() {
        guard let session else { return }
        let available = machine.availableStreams
        guard available > 0, !shared.queue.isEmpty else { return }
        let items = shared.queue.take(max: available)
        let token: APNSProviderToken
        do {
            token = try shared.signer.token(now: shared.configuration.clock())
        } catch {
            for item in items { item.complete(.failure(APNSTransportError(.requestFailed, "JWT: \(error.message)"))) }
            return
        }
        let authorization = "bearer " + token.jwt
        let answerBy = MonotonicClock.now() + shared.configuration.requestTimeout
        for position in items.indices {
            let item = items[position]
            item.authorize(authorization)
            item.answerBy = answerBy
            do {
                let streamID = try session.submitRequest(headers: item.headers, body: item.payload,
                                                         unindexed: APNSPendingRequest.unindexedHeaders)
                item.sentJWT = token.jwt
                inFlight[streamID] = item
                machine.streamOpened(streamID)
                shared.counters.inFlightStreams.add(1, ordering: .relaxed)
            } catch {
                // Stream ids used up, or the session broke: this connection is done.
                shared.queue.requeue(Array(items[position...]))
                return connectionLost("submit: \(error)")
            }
        }
    }

    private func flush() {
        guard let socket, let session else { return }
        do {
            let produced = try session.pendingOutput()
            if !produced.isEmpty {
                if outputOffset == output.count {
                    output = produced
                    outputOffset = 0
                } else {
                    output.append(contentsOf: produced)
                }
            }
        } catch {
            return connectionLost("HTTP/2: \(error)")
        }
        writeWantsWritable = false
        while outputOffset < output.count {
            let offset = outputOffset
            let attempt = output.withUnsafeBytes { bytes in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            }
            let result: NonBlockingSocket.IOResult
            switch attempt {
            case .success(let value): result = value
            case .failure(let error): return failed(error)
            }
            switch result {
            case .transferred(let count):
                outputOffset += count
                if case .handshaking = phase, socket.isHandshaken { established() }
            case .wouldBlock(let wantsWrite):
                writeWantsWritable = wantsWrite
                return
            case .closed:
                return failed(SocketError(.connectionLost, "closed by the server"))
            }
        }
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
    }

    /// xorshift64*, in [0, 1].
    private func nextJitter() -> Double {
        jitterState ^= jitterState >> 12
        jitterState ^= jitterState << 25
        jitterState ^= jitterState >> 27
        return Double((jitterState &* 0x2545_F491_4F6C_DD1D) >> 11) / Double(1 << 53)
    }

    // MARK: Timeouts

    /// Fails the streams whose request timed out and resets them on the wire.
    func sweepTimeouts(now: Double) {
        let expired = inFlight.filter { $0.value.answerBy <= now }
        guard !expired.isEmpty else { return }
        for (streamID, item) in expired {
            inFlight[streamID] = nil
            shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
            item.complete(.failure(APNSTransportError(.timeout, "no response before the request timeout")))
            // Cancel the stream so the server frees its slot too. nghttp2 closes it once the
            // RST_STREAM is written, but reports that only with the next bytes received: count
            // it closed now.
            try? session?.resetStream(streamID)
            perform(machine.streamReset(streamID, now: now, jitter: nextJitter()), lost: false)
        }
    }
}
