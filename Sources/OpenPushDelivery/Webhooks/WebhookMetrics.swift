import Synchronization

/// Webhook event counters by app, kept by the dispatcher and rendered at `/metrics`:
/// `openpush_webhook_events_sent_total{app}` (in 2xx-answered batches),
/// `openpush_webhook_events_failed_total{app}` (in failed attempts; a retried event counts once
/// per failed attempt) and `openpush_webhook_events_pending{app}` (read by the maintenance loop,
/// `Maintenance.refreshMetrics`, never per scrape).
package final class WebhookMetrics: Sendable {
    private struct Counts {
        var sent: [String: UInt64] = [:]
        var failed: [String: UInt64] = [:]
    }

    private let counts = Mutex(Counts())

    package init() {}

    package func recordSent(app: String, events: Int) {
        counts.withLock { $0.sent[app, default: 0] += UInt64(events) }
    }

    package func recordFailed(app: String, events: Int) {
        counts.withLock { $0.failed[app, default: 0] += UInt64(events) }
    }

    package func sent(app: String) -> UInt64 { counts.withLock { $0.sent[app] ?? 0 } }
    package func failed(app: String) -> UInt64 { counts.withLock { $0.failed[app] ?? 0 } }

    /// The two counters' exposition lines.
    func renderCounters() -> [String] {
        let snapshot = counts.withLock { $0 }
        var lines = ["# HELP openpush_webhook_events_sent_total Webhook events delivered (a 2xx answered their batch), by app.",
                     "# TYPE openpush_webhook_events_sent_total counter"]
        for app in snapshot.sent.keys.sorted() {
            lines.append("openpush_webhook_events_sent_total{app=\"\(Self.escape(app))\"} \(snapshot.sent[app]!)")
        }
        lines += ["# HELP openpush_webhook_events_failed_total Webhook events in attempts that failed (once per failed attempt), by app.",
                  "# TYPE openpush_webhook_events_failed_total counter"]
        for app in snapshot.failed.keys.sorted() {
            lines.append("openpush_webhook_events_failed_total{app=\"\(Self.escape(app))\"} \(snapshot.failed[app]!)")
        }
        return lines
    }

    /// The pending gauge's lines, from `WebhookDispatchStore.pendingByApp`.
    package static func renderPending(_ pending: [(app: String, pending: Int64)]) -> String {
        var lines = ["# HELP openpush_webhook_events_pending Events waiting for enabled webhook endpoints, by app (at most 100000 per endpoint).",
                     "# TYPE openpush_webhook_events_pending gauge"]
        for entry in pending {
            lines.append("openpush_webhook_events_pending{app=\"\(escape(entry.app))\"} \(entry.pending)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func escape(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }
}
