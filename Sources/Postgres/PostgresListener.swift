import Foundation

/// A dedicated connection that `LISTEN`s to channels on its own thread. After an outage it
/// reconnects with backoff and listens again. Notifications sent while it was disconnected are
/// lost, so consumers should treat notifications as hints and also poll occasionally.
public final class PostgresListener: Sendable {
    /// Buffers the newest 10,000 notifications when the consumer falls behind.
    public let notifications: AsyncStream<PostgresNotification>
    private let continuation: AsyncStream<PostgresNotification>.Continuation
    private let stopped: Locked<Bool>

    public init(conninfo: String, channels: [String]) {
        (notifications, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let stopped = Locked(false)
        self.stopped = stopped
        continuation.onTermination = { _ in stopped.withLock { $0 = true } }
        let continuation = continuation
        let thread = Thread {
            Self.run(conninfo: conninfo, channels: channels, continuation: continuation, stopped: stopped)
        }
        thread.name = "openpush.postgres.listener"
        thread.start()
    }

    deinit {
        stop()
    }

    /// Ends the stream; the thread closes its connection within a quarter second.
    public func stop() {
        stopped.withLock { $0 = true }
        continuation.finish()
    }

    private static func run(
        conninfo: String,
        channels: [String],
        continuation: AsyncStream<PostgresNotification>.Continuation,
        stopped: Locked<Bool>
    ) {
        let script = channels.map { "LISTEN \(PostgresQuery.quoteIdentifier($0))" }.joined(separator: "; ")
        var backoff = ListenerBackoff()
        while !stopped.withLock({ $0 }) {
            do {
                let connection = try PostgresConnection.connect(conninfo)
                if !script.isEmpty { try connection.execute(script: script) }
                backoff.reset()
                // Short waits so that stop() is noticed promptly.
                while !stopped.withLock({ $0 }) {
                    for notification in try connection.waitForNotifications(milliseconds: 250) {
                        continuation.yield(notification)
                    }
                }
            } catch {
                let delay = backoff.next()
                let deadline = Date().addingTimeInterval(delay)
                while Date() < deadline, !stopped.withLock({ $0 }) {
                    Thread.sleep(forTimeInterval: min(0.05, delay))
                }
            }
        }
    }
}

/// Reconnect delays: 50 ms doubling to at most 1 s, so a restarted server is found again quickly.
struct ListenerBackoff {
    private(set) var current: TimeInterval = 0.05
    let initial: TimeInterval = 0.05
    let maximum: TimeInterval = 1

    mutating func next() -> TimeInterval {
        defer { current = min(current * 2, maximum) }
        return current
    }

    mutating func reset() {
        current = initial
    }
}
