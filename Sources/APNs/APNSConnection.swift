import Crypto
import Foundation
import HTTP2
import OpenPushCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One connection slot of a pool: a thread of its own running a poll(2) loop over a
/// non-blocking socket (TLS or h2c), an `HTTP2ClientSession` driven through memory buffers,
/// and the `APNSConnectionStateMachine` that decides. Requests come from the pool's shared
/// queue, as many as the server's SETTINGS allow; outcomes go to each request's completion.
///
/// `@unchecked Sendable`: everything mutable is touched only by the connection's thread;
/// other threads only reach the queue, the wake signal and the stop flag, which are safe.
final class APNSConnection: @unchecked Sendable {
    struct Shared: Sendable {
        let endpoint: APNSEndpoint
        let tlsContext: TLSClientContext?
        let signer: APNSJWTSigner
        let queue: APNSRequestQueue
        let counters: APNSClientCounters
        let configuration: APNSClientConfiguration
        let logger: Logger
    }

    private let index: Int
    private let shared: Shared
    private let wake: APNSWakeSignal
    private let stopRequested = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    // Owned by the connection thread.
    private var machine: APNSConnectionStateMachine
    private var socket: APNSSocket?
    private var session: HTTP2ClientSession?
    private var inFlight: [Int32: APNSPendingRequest] = [:]
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// TLS wants the socket writable before it can read on (a renegotiation or key update).
    private var readWantsWritable = false
    private var nextSweep: Double = 0
    private var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Backoff jitter from a cheap generator: the system one is a syscall, and `tick` runs
    /// every loop iteration.
    private var jitterState = UInt64.random(in: 1...UInt64.max)

    init(index: Int, shared: Shared) {
        self.index = index
        self.shared = shared
        wake = shared.queue.wakers[index]
        machine = APNSConnectionStateMachine(configuration: shared.configuration.stateMachineConfiguration)
    }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "apns-\(shared.endpoint.authority)-\(index)"
        thread.start()
    }

    /// Asks the thread to close the connection (failing what is in flight) and end.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        wake.wake()
    }

    /// Blocks until the thread has ended; call after `stop()`, from a thread of one's own.
    func waitUntilFinished() {
        finished.wait()
    }

    // MARK: The loop

    private func run() {
        while true {
            wake.acknowledge()
            if stopRequested.load(ordering: .acquiring) {
                perform(machine.shutdown(), lost: true)
                failInFlight(APNSTransportError(.shutdown, "the APNs client is shut down"))
                return
            }
            var now = APNSMonotonicClock.now()
            perform(machine.tick(now: now, hasWork: !shared.queue.isEmpty, jitter: nextJitter()), lost: true)
            if socket != nil {
                readAvailable()
                openStreams()
                flush()
            }
            now = APNSMonotonicClock.now()
            if now >= nextSweep {
                sweepTimeouts(now: now)
                nextSweep = now + 0.25
            }
            waitForActivity(now: now)
        }
    }

    private func waitForActivity(now: Double) {
        let hasWork = !shared.queue.isEmpty
        var timeout: Int32 = -1
        var deadline = machine.nextDeadline(hasWork: hasWork)
        if !inFlight.isEmpty || hasWork {
            deadline = min(deadline ?? nextSweep, nextSweep)
        }
        if let deadline {
            timeout = Int32(clamping: Int(max(0, (deadline - now) * 1000).rounded(.up)))
        }
        // Work waiting and streams free: do not sleep at all.
        if hasWork, machine.availableStreams > 0 { timeout = 0 }
        var entries = [pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
        if let socket {
            let hasOutput = outputOffset < output.count || session?.wantsWrite == true
            let events = Int16(POLLIN) | (hasOutput || readWantsWritable ? Int16(POLLOUT) : 0)
            entries.append(pollfd(fd: socket.descriptor, events: events, revents: 0))
        }
        _ = poll(&entries, nfds_t(entries.count), timeout)
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

    private func connect() {
        shared.queue.setStatus(.connecting, of: index)
        do throws(APNSTransportError) {
            let opened = try APNSSocket.open(
                shared.endpoint, tlsContext: shared.tlsContext, timeout: shared.configuration.connectTimeout)
            guard let session = try? HTTP2ClientSession() else {
                opened.close()
                throw APNSTransportError(.connectFailed, "cannot create an HTTP/2 session")
            }
            socket = opened
            self.session = session
            output = []
            outputOffset = 0
            readWantsWritable = false
            machine.connectSucceeded(now: APNSMonotonicClock.now())
            shared.queue.setStatus(.up, of: index)
            shared.counters.openConnections.add(1, ordering: .relaxed)
            shared.counters.connectionsOpened.add(1, ordering: .relaxed)
            shared.logger.debug("APNs connection open", ["apns.endpoint": shared.endpoint.authority])
            flush()
        } catch {
            shared.logger.warning("APNs connect failed: \(error.message)", ["apns.endpoint": shared.endpoint.authority])
            machine.connectFailed(now: APNSMonotonicClock.now(), jitter: nextJitter())
            shared.queue.connectFailed(index: index, error: error)
        }
    }

    private func closeSocket() {
        guard let socket else { return }
        socket.close()
        self.socket = nil
        session = nil
        output = []
        outputOffset = 0
        // Whatever the machine no longer tracks but still waits (none, normally) goes back too.
        giveBack(Array(inFlight.keys), lost: true)
        shared.queue.setStatus(.down, of: index)
        shared.counters.openConnections.subtract(1, ordering: .relaxed)
    }

    private func connectionLost(_ reason: String) {
        shared.logger.debug("APNs connection lost: \(reason)", ["apns.endpoint": shared.endpoint.authority])
        perform(machine.connectionLost(now: APNSMonotonicClock.now(), jitter: nextJitter()), lost: true)
        closeSocket()
    }

    /// Puts the requests of these streams back on the queue (or fails them when they have
    /// used up their retries or their time).
    private func giveBack(_ streamIDs: [Int32], lost: Bool) {
        var returned: [APNSPendingRequest] = []
        let now = APNSMonotonicClock.now()
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

    private func failInFlight(_ error: APNSTransportError) {
        for item in inFlight.values {
            shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
            item.complete(.failure(error))
        }
        inFlight = [:]
    }

    // MARK: Reading

    private func readAvailable() {
        // Bounded, so a flood of responses cannot starve writing.
        for _ in 0..<64 {
            guard let socket, let session else { return }
            // withUnsafeMutableBytes only rethrows untyped errors: carry the typed one out as a Result.
            let attempt = readBuffer.withUnsafeMutableBytes { buffer in
                Result { () throws(APNSTransportError) in try socket.read(into: buffer) }
            }
            let result: APNSSocket.IOResult
            switch attempt {
            case .success(let value): result = value
            case .failure(let error): return connectionLost(error.message)
            }
            switch result {
            case .transferred(let count):
                readWantsWritable = false
                let now = APNSMonotonicClock.now()
                machine.bytesReceived(now: now)
                let events: [HTTP2Event]
                do {
                    events = try session.receive(Array(readBuffer[0..<count]))
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
    }

    private func handle(_ event: HTTP2Event, now: Double) {
        switch event {
        case .settingsChanged(let limit):
            machine.settingsReceived(maxConcurrentStreams: limit, now: now)
        case .response(let streamID, let status, let headers, let body):
            let action = machine.responseReceived(streamID, now: now)
            if let item = inFlight.removeValue(forKey: streamID) {
                shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
                finish(item, response: Self.response(status: status, headers: headers, body: body))
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
    private func finish(_ item: APNSPendingRequest, response: APNSResponse) {
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
            default: break
            }
        }
        if !body.isEmpty, let object = (try? JSONValue.parse(body))?.objectValue {
            response.reason = object["reason"]?.stringValue.map(APNSReason.init(rawValue:))
            response.timestamp = object["timestamp"]?.intValue
        }
        return response
    }

    // MARK: Writing

    /// Takes as many queued requests as the server allows and submits them.
    private func openStreams() {
        guard let session else { return }
        let available = machine.availableStreams
        guard available > 0 else { return }
        let items = shared.queue.take(max: available)
        guard !items.isEmpty else { return }
        let token: APNSProviderToken
        do {
            token = try shared.signer.token(now: shared.configuration.clock())
        } catch {
            for item in items { item.complete(.failure(APNSTransportError(.requestFailed, "JWT: \(error.message)"))) }
            return
        }
        let authorization = "bearer " + token.jwt
        for (position, item) in items.enumerated() {
            var headers = item.headers
            headers.insert(("authorization", authorization), at: 4)
            do {
                let streamID = try session.submitRequest(headers: headers, body: item.payload)
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
        while outputOffset < output.count {
            let offset = outputOffset
            let attempt = output.withUnsafeBytes { bytes in
                Result { () throws(APNSTransportError) in try socket.write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            }
            let result: APNSSocket.IOResult
            switch attempt {
            case .success(let value): result = value
            case .failure(let error): return connectionLost(error.message)
            }
            switch result {
            case .transferred(let count):
                outputOffset += count
            case .wouldBlock:
                return
            case .closed:
                return connectionLost("closed by the server")
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

    private func sweepTimeouts(now: Double) {
        shared.queue.expire(now: now)
        let expired = inFlight.filter { $0.value.deadline <= now }
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
        flush()
    }
}
