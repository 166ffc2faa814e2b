import Crypto
import EventLoop
import Foundation
import OpenPushCore
import Synchronization

/// One thread that drives its share of a client's APNs connections (a client has a fixed
/// few, `eventLoops`): epoll over all their sockets plus a wake signal, timers (PING,
/// SETTINGS and connect timeouts, reconnect backoff, request timeouts, idle pools) from the
/// monotonic clock, and an inbox for work from other threads. Pools and connections are
/// state of this thread, so they need no locks; the inbox is the only thing shared.
///
/// `@unchecked Sendable`: other threads only reach `inbox` (a mutex) and `wake`; everything
/// else is touched by the loop's thread alone.
final class APNSEventLoop: @unchecked Sendable {
    private enum Command {
        case submit(APNSPoolKey, [APNSPendingRequest], APNSPoolShape)
        case retire(APNSCredential, done: @Sendable () -> Void)
        case resolved(host: String, port: UInt16, Result<[AddressResolver.Address], SocketError>)
    }

    private struct Inbox {
        var commands: [Command] = []
        var stopRequested = false
        var stopped = false
        var whenStopped: [@Sendable () -> Void] = []
    }

    static let shutdownError = APNSTransportError(.shutdown, "the APNs client is shut down")
    static let retiredError = APNSTransportError(.shutdown, "the credential was retired")

    private let inbox = Mutex(Inbox())
    private let wake = EpollWakeSignal()

    // Owned by the loop's thread.
    private let endpoints: [APNSRoute: APNSEndpoint]
    private let tlsContext: TLSClientContext?
    private let configuration: APNSClientConfiguration
    private let counters: APNSClientCounters
    private let logger: Logger
    private var context: APNSLoopContext!
    private var pools: [APNSPoolKey: APNSConnectionPool] = [:]
    private var scheduled: [APNSConnectionPool] = []
    /// No later than the earliest `deadline` of a pool: then the pools due are serviced.
    private var timersDue = Double.infinity

    init(
        endpoints: [APNSRoute: APNSEndpoint], tlsContext: TLSClientContext?,
        configuration: APNSClientConfiguration, counters: APNSClientCounters, logger: Logger
    ) {
        self.endpoints = endpoints
        self.tlsContext = tlsContext
        self.configuration = configuration
        self.counters = counters
        self.logger = logger
        let resolverThread = ResolverThread(name: "apns-resolver") { [weak self] host, port, result in
            self?.post(.resolved(host: host, port: port, result))
        }
        context = APNSLoopContext(resolver: AddressResolver(thread: resolverThread))
        context.epoll.add(wake.descriptor, token: APNSLoopContext.wakeToken, interest: .readable)
        let thread = Thread { [self] in run() }
        thread.name = "apns-event-loop"
        thread.start()
    }

    // MARK: From any thread

    /// Hands requests to this loop's pool of `key`, opening it with `shape` if need be; after
    /// `stop` they fail at once.
    func submit(_ items: [APNSPendingRequest], to key: APNSPoolKey, shape: APNSPoolShape) {
        guard post(.submit(key, items, shape)) else {
            for item in items { item.complete(.failure(Self.shutdownError)) }
            return
        }
    }

    /// Closes the pools of `credential`; `done` runs once they are closed.
    func retire(_ credential: APNSCredential, done: @escaping @Sendable () -> Void) {
        guard post(.retire(credential, done: done)) else { return done() }
    }

    /// False when the loop is stopping and took nothing.
    @discardableResult
    private func post(_ command: Command) -> Bool {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopRequested else { return false }
            inbox.commands.append(command)
            return true
        }
        if accepted { wake.wake() }
        return accepted
    }

    /// Fails everything, closes every connection and ends the thread; `done` runs after that.
    func stop(done: @escaping @Sendable () -> Void) {
        let finished = inbox.withLock { inbox -> Bool in
            guard !inbox.stopped else { return true }
            inbox.stopRequested = true
            inbox.whenStopped.append(done)
            return false
        }
        if finished { return done() }
        wake.wake()
    }

    // MARK: The loop

    private func run() {
        while true {
            let events = context.epoll.wait(timeout: waitTimeout(now: MonotonicClock.now()))
            for event in events {
                if event.token == APNSLoopContext.wakeToken {
                    wake.acknowledge()
                } else if let connection = context.registered[event.token] {
                    connection.handle(event.ready)
                    schedule(connection.pool)
                }
            }
            if !context.unfinishedReads.isEmpty {
                let unfinished = context.unfinishedReads
                context.unfinishedReads = []
                for connection in unfinished {
                    connection.continueReading()
                    schedule(connection.pool)
                }
            }
            let stopping = takeCommands()
            let now = MonotonicClock.now()
            if stopping {
                context.resolver.stop()
                for pool in pools.values { pool.close(Self.shutdownError) }
                pools = [:]
                break
            }
            serviceScheduled(now: now)
        }
        let waiters = inbox.withLock { inbox in
            inbox.stopped = true
            return inbox.whenStopped
        }
        for waiter in waiters { waiter() }
    }

    private func waitTimeout(now: Double) -> Int32 {
        if !context.unfinishedReads.isEmpty || !scheduled.isEmpty { return 0 }
        guard timersDue.isFinite else { return -1 }
        return Int32(clamping: Int(max(0, (timersDue - now) * 1000).rounded(.up)))
    }

    /// Runs the inbox; true when the loop is to stop.
    private func takeCommands() -> Bool {
        let (commands, stopping) = inbox.withLock { inbox in
            defer { inbox.commands = [] }
            return (inbox.commands, inbox.stopRequested)
        }
        guard !commands.isEmpty else { return stopping }
        let now = MonotonicClock.now()
        for command in commands {
            switch command {
            case .submit(let key, let items, let shape):
                let pool = pools[key] ?? openPool(key, shape: shape, now: now)
                pool.submit(items, now: now)
                schedule(pool)
            case .retire(let credential, let done):
                for (key, pool) in pools where key.credential == credential {
                    pool.close(Self.retiredError)
                    pools[key] = nil
                    counters.openPools.subtract(1, ordering: .relaxed)
                }
                done()
            case .resolved(let host, let port, let result):
                context.resolver.store(host: host, port: port, result, now: now)
                // The connections waiting for it look again when serviced.
                for pool in pools.values { schedule(pool) }
            }
        }
        return stopping
    }

    private func openPool(_ key: APNSPoolKey, shape: APNSPoolShape, now: Double) -> APNSConnectionPool {
        let pool = APNSConnectionPool(
            key: key, endpoint: endpoints[key.route]!, tlsContext: tlsContext, authentication: shape.authentication,
            connections: shape.connections, configuration: configuration, counters: counters, logger: logger,
            context: context, now: now)
        pools[key] = pool
        counters.openPools.add(1, ordering: .relaxed)
        return pool
    }

    private func schedule(_ pool: APNSConnectionPool) {
        guard !pool.isScheduled else { return }
        pool.isScheduled = true
        scheduled.append(pool)
    }

    /// Services the pools that had events or work, and those whose timer is due; closes pools
    /// that have been idle long enough. Finding the due pools is a scan of one number per pool.
    private func serviceScheduled(now: Double) {
        if now >= timersDue {
            timersDue = .infinity
            for pool in pools.values {
                if pool.deadline <= now {
                    schedule(pool)
                } else {
                    timersDue = min(timersDue, pool.deadline)
                }
            }
        }
        let due = scheduled
        scheduled = []
        for pool in due {
            pool.isScheduled = false
            guard !pool.isClosed else { continue }
            if pool.isIdle(now: now) {
                logger.debug("APNs pool idle, closing", ["apns.endpoint": pool.shared.endpoint.authority])
                pool.close(Self.shutdownError)
                pools[pool.key] = nil
                counters.openPools.subtract(1, ordering: .relaxed)
                continue
            }
            pool.deadline = pool.service(now: now) ?? .infinity
            timersDue = min(timersDue, pool.deadline)
        }
    }
}
