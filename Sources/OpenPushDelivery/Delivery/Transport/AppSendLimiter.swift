import Synchronization

/// Caps each app's requests in flight to one push service (FCM, Web Push; one limiter per
/// transport), across every batch of the process, so one app's big fan-out cannot hold every
/// HTTP/2 stream and connection while another app waits. An app
/// at its cap queues its next pushes, urgent ones ahead of bulk; a freed slot goes straight to
/// the next waiter of the same app.
final class AppSendLimiter: Sendable {
    private struct Waiters {
        var items: [CheckedContinuation<Void, Never>] = []
        var head = 0

        var isEmpty: Bool { head == items.count }

        mutating func append(_ waiter: CheckedContinuation<Void, Never>) { items.append(waiter) }

        mutating func popFirst() -> CheckedContinuation<Void, Never>? {
            guard !isEmpty else { return nil }
            let first = items[head]
            head += 1
            // Drop the consumed front once it is most of the storage.
            if head >= 64, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return first
        }
    }

    private struct App {
        var inFlight = 0
        var urgent = Waiters()
        var bulk = Waiters()
    }

    let perApp: Int
    private let apps = Mutex<[String: App]>([:])

    init(perApp: Int) {
        self.perApp = max(1, perApp)
    }

    /// Waits for one of `app`'s slots; pair with `release(app:)`.
    func acquire(app: String, urgent: Bool) async {
        let perApp = self.perApp
        let taken = apps.withLock { apps -> Bool in
            guard apps[app, default: App()].inFlight < perApp else { return false }
            apps[app, default: App()].inFlight += 1
            return true
        }
        if taken { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = apps.withLock { apps -> Bool in
                if apps[app, default: App()].inFlight < perApp {
                    apps[app, default: App()].inFlight += 1
                    return true
                }
                if urgent { apps[app, default: App()].urgent.append(waiter) } else { apps[app, default: App()].bulk.append(waiter) }
                return false
            }
            if now { waiter.resume() }
        }
    }

    /// Frees a slot of `app`: the next waiter (urgent first) takes it over.
    func release(app: String) {
        let next = apps.withLock { apps -> CheckedContinuation<Void, Never>? in
            guard apps[app] != nil else { return nil }
            // In place (the `default:` subscript): a copy would copy the waiter queues each time.
            let next = apps[app, default: App()].urgent.popFirst() ?? apps[app, default: App()].bulk.popFirst()
            if next == nil {
                apps[app, default: App()].inFlight -= 1
                if apps[app]?.inFlight == 0 { apps[app] = nil }
            }
            return next
        }
        next?.resume()
    }

    /// Requests of `app` in flight now, and waiting for a slot (tests).
    func inFlight(app: String) -> Int { apps.withLock { $0[app]?.inFlight ?? 0 } }
    func waiting(app: String) -> Int {
        apps.withLock { apps in apps[app].map { ($0.urgent.items.count - $0.urgent.head) + ($0.bulk.items.count - $0.bulk.head) } ?? 0 }
    }
}
