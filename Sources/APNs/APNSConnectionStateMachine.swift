/// The life of one connection slot of the pool, as a pure value: events go in, the action to
/// run comes out, and time is a parameter. The I/O layer (`APNSConnection`) owns the socket
/// and the nghttp2 session and runs the actions; this decides.
///
/// idle → connecting → ready → draining (GOAWAY) → closed → (backoff) → connecting → …
/// A slot connects only when there is work, so an app that sends nothing holds no socket.
struct APNSConnectionStateMachine: Sendable {
    struct Configuration: Sendable, Hashable {
        /// Never more streams than this on one connection, whatever the server allows.
        var maxStreamsCap = 1000
        /// PING after this long without a frame from the server.
        var pingInterval: Double = 60
        /// A PING unanswered, or SETTINGS not received after connecting, for this long: the
        /// connection is dead.
        var pingTimeout: Double = 10
        /// Reconnect delay after the first failure; doubles per failure up to `backoffCap`.
        var backoffBase: Double = 0.1
        var backoffCap: Double = 30
    }

    enum State: Sendable, Hashable {
        /// No connection, and none wanted until there is work.
        case idle
        /// TCP/TLS under way, or up and waiting for the server's first SETTINGS.
        case connecting
        /// Streams may be opened, up to the server's limit.
        case ready
        /// GOAWAY received: no new streams; the ones at or below `lastStreamID` may still finish.
        case draining(lastStreamID: Int32)
        /// No connection; the next may start at `reconnectAt` if there is work.
        case closed(reconnectAt: Double)
        /// The client shut down; nothing more happens.
        case shutDown
    }

    enum Action: Sendable, Hashable {
        case none
        /// Open a socket (then report `connectSucceeded` or `connectFailed`).
        case connect
        case sendPing
        /// These streams ended without a response: put their requests back on the queue.
        case retry([Int32])
        /// Close the socket; the requests of these streams go back on the queue.
        case closeConnection(retry: [Int32])
    }

    let configuration: Configuration
    private(set) var state: State = .idle
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS, capped; 0 until the first SETTINGS.
    private(set) var maxConcurrentStreams = 0
    private(set) var inFlight: Set<Int32> = []

    /// Connections in a row that failed or closed without answering a single stream.
    private(set) var failures = 0
    private var answeredOnThisConnection = false
    private var connectedAt: Double?
    private var lastReceived: Double = 0
    private var pingSentAt: Double?

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// How many more streams may be opened now.
    var availableStreams: Int {
        state == .ready ? max(0, maxConcurrentStreams - inFlight.count) : 0
    }

    var isConnected: Bool {
        switch state {
        case .ready, .draining: true
        case .connecting: connectedAt != nil
        default: false
        }
    }

    // MARK: Connecting

    /// Timers and the decision to connect. Call whenever the loop wakes.
    mutating func tick(now: Double, hasWork: Bool, jitter: Double) -> Action {
        switch state {
        case .idle:
            return hasWork ? startConnecting() : .none
        case .closed(let reconnectAt):
            return hasWork && now >= reconnectAt ? startConnecting() : .none
        case .connecting:
            if let connectedAt, now - connectedAt >= configuration.pingTimeout {
                return connectionLost(now: now, jitter: jitter)
            }
            return .none
        case .ready, .draining:
            if let pingSentAt {
                return now - pingSentAt >= configuration.pingTimeout ? connectionLost(now: now, jitter: jitter) : .none
            }
            if now - lastReceived >= configuration.pingInterval {
                pingSentAt = now
                return .sendPing
            }
            return .none
        case .shutDown:
            return .none
        }
    }

    /// When `tick` next has something to do, for the loop's poll timeout; nil: only events.
    func nextDeadline(hasWork: Bool) -> Double? {
        switch state {
        case .idle, .shutDown: nil
        case .closed(let reconnectAt): hasWork ? reconnectAt : nil
        case .connecting: connectedAt.map { $0 + configuration.pingTimeout }
        case .ready, .draining:
            pingSentAt.map { $0 + configuration.pingTimeout } ?? lastReceived + configuration.pingInterval
        }
    }

    /// TCP (and TLS) are up and the client preface is queued; SETTINGS are awaited.
    mutating func connectSucceeded(now: Double) {
        guard state == .connecting else { return }
        connectedAt = now
        lastReceived = now
    }

    mutating func connectFailed(now: Double, jitter: Double) {
        guard state == .connecting else { return }
        closeAndScheduleReconnect(now: now, jitter: jitter)
    }

    // MARK: Frames

    /// Any bytes from the server prove the connection alive.
    mutating func bytesReceived(now: Double) {
        lastReceived = now
        pingSentAt = nil
    }

    /// The server's SETTINGS: the first makes the connection ready. APNs raises the limit
    /// once a token is accepted; a lower limit only stops new streams until enough close.
    mutating func settingsReceived(maxConcurrentStreams limit: UInt32, now: Double) {
        maxConcurrentStreams = Int(min(UInt32(clamping: configuration.maxStreamsCap), limit))
        if state == .connecting { state = .ready }
    }

    mutating func streamOpened(_ streamID: Int32) {
        inFlight.insert(streamID)
    }

    mutating func responseReceived(_ streamID: Int32, now: Double) -> Action {
        guard inFlight.remove(streamID) != nil else { return .none }
        answeredOnThisConnection = true
        failures = 0
        return closeIfDrained(retry: [], now: now, jitter: 0)
    }

    /// A stream closed without a complete response (RST_STREAM): the request goes elsewhere.
    mutating func streamReset(_ streamID: Int32, now: Double, jitter: Double) -> Action {
        guard inFlight.remove(streamID) != nil else { return .none }
        if case .draining = state { return closeIfDrained(retry: [streamID], now: now, jitter: jitter) }
        return .retry([streamID])
    }

    /// GOAWAY: nothing new on this connection; every stream above `lastStreamID` was not
    /// processed and is retried elsewhere; the rest may finish, then the connection closes.
    mutating func goAwayReceived(lastStreamID: Int32, now: Double, jitter: Double) -> Action {
        switch state {
        case .connecting, .ready, .draining: break
        default: return .none
        }
        var limit = lastStreamID
        if case .draining(let previous) = state { limit = min(previous, lastStreamID) }
        state = .draining(lastStreamID: limit)
        let refused = inFlight.filter { $0 > limit }.sorted()
        inFlight.subtract(refused)
        return closeIfDrained(retry: refused, now: now, jitter: jitter)
    }

    /// The socket failed (read/write error, EOF) or a timer declared the connection dead.
    /// Every stream still out is a transport failure, retried elsewhere.
    mutating func connectionLost(now: Double, jitter: Double) -> Action {
        switch state {
        case .connecting, .ready, .draining: break
        default: return .none
        }
        let lost = inFlight.sorted()
        closeAndScheduleReconnect(now: now, jitter: jitter)
        return .closeConnection(retry: lost)
    }

    mutating func shutdown() -> Action {
        let wasConnected = isConnected || state == .connecting
        let lost = inFlight.sorted()
        inFlight = []
        state = .shutDown
        return wasConnected ? .closeConnection(retry: lost) : .none
    }

    // MARK: Helpers

    private mutating func startConnecting() -> Action {
        state = .connecting
        connectedAt = nil
        answeredOnThisConnection = false
        maxConcurrentStreams = 0
        pingSentAt = nil
        return .connect
    }

    /// Once a draining connection has no stream left it closes.
    private mutating func closeIfDrained(retry: [Int32], now: Double, jitter: Double) -> Action {
        guard case .draining = state, inFlight.isEmpty else { return retry.isEmpty ? .none : .retry(retry) }
        closeAndScheduleReconnect(now: now, jitter: jitter)
        return .closeConnection(retry: retry)
    }

    /// A connection that answered something resets the failure count, so a routine GOAWAY
    /// reconnects at once; one that never answered backs off, so a server that accepts and
    /// hangs up cannot make the client spin.
    private mutating func closeAndScheduleReconnect(now: Double, jitter: Double) {
        if answeredOnThisConnection {
            failures = 0
        } else {
            failures += 1
        }
        inFlight = []
        connectedAt = nil
        pingSentAt = nil
        maxConcurrentStreams = 0
        state = .closed(reconnectAt: now + Self.backoff(failures: failures, configuration: configuration, jitter: jitter))
    }

    /// Capped exponential backoff with jitter: `min(cap, base·2^(failures−1))`, scaled into
    /// [½, 1] of that by `jitter` ∈ [0, 1]. No delay after zero failures.
    static func backoff(failures: Int, configuration: Configuration, jitter: Double) -> Double {
        guard failures > 0 else { return 0 }
        let exponential = configuration.backoffBase * Double(1 << min(failures - 1, 30))
        let capped = min(configuration.backoffCap, exponential)
        return capped * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }
}
