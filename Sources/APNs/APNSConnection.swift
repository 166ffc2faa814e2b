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
    enum Phase {
        case idle
        /// Waiting for the resolver thread.
        case resolving(deadline: Double)
        /// TCP connect in flight to one address; the others are tried next.
        case connecting(remaining: ArraySlice<AddressResolver.Address>, deadline: Double)
        case handshaking(deadline: Double)
        case open
    }

    let index: Int
    unowned let pool: APNSConnectionPool
    let context: APNSLoopContext
    let shared: APNSConnectionPool.Shared

    var machine: APNSConnectionStateMachine
    var phase = Phase.idle
    var socket: NonBlockingSocket?
    var token: UInt64 = 0
    var interest: Epoll.Interest = []
    var session: HTTP2ClientSession?
    var inFlight: [Int32: APNSPendingRequest] = [:]
    var output: [UInt8] = []
    var outputOffset = 0
    /// TLS wants the socket writable before it can read on (a renegotiation or key update).
    var readWantsWritable = false
    /// The last write (or handshake step) waits for writability rather than readability.
    var writeWantsWritable = false
    /// Counted in `openConnections` (from the end of the handshake until closed).
    var isCounted = false
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
    func perform(_ action: APNSConnectionStateMachine.Action, lost: Bool) {
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

    /// xorshift64*, in [0, 1].
    func nextJitter() -> Double {
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
