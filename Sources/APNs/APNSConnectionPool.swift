import Crypto
import OpenPushCore

/// Which pool a push goes to: one per credential and environment.
struct APNSPoolKey: Hashable, Sendable {
    /// nil: requests that carry their own `authorization` (another service's, e.g. FCM's).
    var credential: APNSCredential?
    var environment: APNSEnvironment
    /// The push hosts, or the channel management hosts (`APNSClient+Channels`).
    var service: APNSService = .push

    var route: APNSRoute { APNSRoute(environment: environment, service: service) }
}

/// What a loop needs to open its pool of a credential: how its connections authenticate
/// (shared by every loop, so a key has one provider token and a certificate one TLS context)
/// and how many of the credential's connections are this loop's.
struct APNSPoolShape: Sendable {
    var authentication: APNSPoolAuthentication
    var connections: Int
}

/// How a pool's connections authenticate: a provider token in each request, or the client
/// certificate of the TLS context they connect with.
enum APNSPoolAuthentication: Sendable {
    case token(APNSJWTSigner)
    case certificate(TLSClientContext)
    /// Each request's own `authorization` header (FCM's access tokens, one per app).
    case carriedByRequests
}

/// The connections of one (credential, environment) on one event loop: a shared queue of requests and a few
/// connections that take from it, all state of the event loop. Opened by the first push for
/// its key; the loop closes it once it has been idle for `idleTimeout`, or when its
/// credential is retired.
///
/// Not thread-safe: the event loop's thread owns it.
final class APNSConnectionPool {
    /// What its connections share; a class, so reaching it costs one reference, not a copy.
    final class Shared {
        let endpoint: APNSEndpoint
        let tlsContext: TLSClientContext?
        /// nil for a certificate's connections: they send no `authorization`.
        let signer: APNSJWTSigner?
        let queue: APNSRequestQueue
        let counters: APNSClientCounters
        let configuration: APNSClientConfiguration
        let logger: Logger

        init(
            endpoint: APNSEndpoint, tlsContext: TLSClientContext?, signer: APNSJWTSigner?, queue: APNSRequestQueue,
            counters: APNSClientCounters, configuration: APNSClientConfiguration, logger: Logger
        ) {
            self.endpoint = endpoint
            self.tlsContext = tlsContext
            self.signer = signer
            self.queue = queue
            self.counters = counters
            self.configuration = configuration
            self.logger = logger
        }
    }

    /// How often requests past their deadline are looked for while the pool is busy.
    private static let sweepInterval = 0.25

    let key: APNSPoolKey
    let shared: Shared
    private(set) var connections: [APNSConnection] = []
    /// When a push last came in or an answer came back (monotonic seconds).
    var lastActivity: Double
    /// Already in the loop's list of pools to service.
    var isScheduled = false
    /// When `service` last said it next has something to do (monotonic seconds).
    var deadline = Double.infinity
    /// Closed and out of the loop's table (it may still be in the list to service).
    private(set) var isClosed = false
    private var nextSweep: Double

    init(
        key: APNSPoolKey, endpoint: APNSEndpoint, tlsContext: TLSClientContext?, authentication: APNSPoolAuthentication,
        connections: Int, configuration: APNSClientConfiguration, counters: APNSClientCounters, logger: Logger,
        context: APNSLoopContext, now: Double
    ) {
        self.key = key
        let count = max(1, connections)
        let signer: APNSJWTSigner?
        let connectWith: TLSClientContext?
        switch authentication {
        case .token(let tokenSigner):
            signer = tokenSigner
            connectWith = tlsContext
        case .certificate(let certificateContext):
            signer = nil
            connectWith = certificateContext
        case .carriedByRequests:
            signer = nil
            connectWith = tlsContext
        }
        shared = Shared(
            endpoint: endpoint, tlsContext: connectWith, signer: signer,
            queue: APNSRequestQueue(connections: count, counters: counters), counters: counters,
            configuration: configuration, logger: logger)
        lastActivity = now
        nextSweep = now + Self.sweepInterval
        self.connections = (0..<count).map { APNSConnection(index: $0, pool: self, context: context) }
    }

    func submit(_ items: [APNSPendingRequest], now: Double) {
        lastActivity = now
        shared.queue.enqueue(items)
    }

    private var isBusy: Bool {
        !shared.queue.isEmpty || connections.contains { $0.inFlightCount > 0 }
    }

    /// Runs timers and moves requests onto streams; returns when it next has something to do.
    func service(now: Double) -> Double? {
        if now >= nextSweep {
            nextSweep = now + Self.sweepInterval
            shared.queue.expire(now: now)
            for connection in connections { connection.sweepTimeouts(now: now) }
        }
        for connection in connections { connection.service(now: now) }
        let hasWork = !shared.queue.isEmpty
        var deadline = connections.lazy.compactMap { $0.nextDeadline(hasWork: hasWork) }.min()
        let timer = isBusy ? nextSweep : lastActivity + shared.configuration.idleTimeout
        deadline = min(deadline ?? timer, timer)
        return deadline
    }

    /// Nothing waiting, nothing in flight, and nothing new for `idleTimeout`.
    func isIdle(now: Double) -> Bool {
        !isBusy && now - lastActivity >= shared.configuration.idleTimeout
    }

    /// Fails what waits or is in flight with `error` and closes every connection.
    func close(_ error: APNSTransportError) {
        isClosed = true
        shared.queue.shutdown(error)
        for connection in connections { connection.shutdown(error) }
    }
}
