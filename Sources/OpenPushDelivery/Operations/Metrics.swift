package import OpenPushCore
import Synchronization

/// Request counters and latency histograms, rendered in the Prometheus text format.
/// Routes are recorded by template and methods outside the known set as `OTHER`, so that
/// neither ids in paths nor invented methods can blow up the series count.
package final class Metrics: Sendable {
    /// Latency buckets in seconds: fine at the low end, where a healthy API lives.
    package static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private struct Histogram {
        var bucketCounts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0

        init(buckets: Int = Metrics.latencyBuckets.count) {
            bucketCounts = [UInt64](repeating: 0, count: buckets)
        }

        mutating func observe(_ value: Double, bounds: [Double], times: UInt64 = 1) {
            for (index, bound) in bounds.enumerated() where value <= bound {
                bucketCounts[index] += times
            }
            sum += value * Double(times)
            count += times
        }
    }

    fileprivate struct PushKey: Hashable {
        var kind: TokenKind
        var state: PushState
        var reason: String
        var service: PushService

        /// Series are rendered in the order of their label texts.
        var sortKey: (String, String, String, String) { (service.rawValue, kind.rawValue, state.label, reason) }
    }

    /// One accepted push's queue-to-accepted time, counted per push service.
    fileprivate struct LatencyKey: Hashable {
        var service: PushService
        var seconds: Double
    }

    private struct State {
        var requests: [RequestKey: UInt64] = [:]
        var latency: [String: Histogram] = [:]
        var pushes: [PushKey: UInt64] = [:]
        var deliveryLatency: [PushService: Histogram] = [:]
        var failedMessages: [String: UInt64] = [:]
    }

    /// Queue-to-accepted latency buckets in seconds.
    package static let deliveryBuckets: [Double] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

    private let state = Mutex(State())

    /// Point-in-time values owned by other components (the APNs client's connections and
    /// streams), read when `/metrics` is rendered.
    package typealias Gauge = (name: String, help: String, value: Double)
    private let gaugeSources = Mutex<[@Sendable () -> [Gauge]]>([])

    package func addGauges(_ source: @escaping @Sendable () -> [Gauge]) {
        gaugeSources.withLock { $0.append(source) }
    }

    package var registeredGauges: [Gauge] {
        gaugeSources.withLock { $0 }.flatMap { $0() }
    }

    /// Webhook events sent and failed, by app (the dispatcher records them).
    package let webhooks = WebhookMetrics()

    /// Figures only PostgreSQL knows, read by the maintenance loop (`Maintenance.refreshMetrics`)
    /// and served from here, so a scrape runs no query: however often it comes, and whatever the
    /// database's state, it costs the database nothing.
    package struct DatabaseFigures: Sendable {
        /// Recipients waiting to be sent (`DeliveryQueue.depth`).
        package var queueDepth: Int
        /// Events waiting for each app's enabled webhook endpoints (`WebhookDispatchStore.pendingByApp`).
        package var webhookPending: [(app: String, pending: Int64)]
        /// When they were read (Unix seconds).
        package var at: Double

        package init(queueDepth: Int, webhookPending: [(app: String, pending: Int64)], at: Double) {
            self.queueDepth = queueDepth
            self.webhookPending = webhookPending
            self.at = at
        }
    }

    private let figures = Mutex<DatabaseFigures?>(nil)

    /// The last figures read; nil before the first read, and after a read that failed.
    package var databaseFigures: DatabaseFigures? {
        get { figures.withLock { $0 } }
        set { figures.withLock { $0 = newValue } }
    }

    package init() {}

    /// Methods recorded under their own name; any other token a client sends is `OTHER`.
    package static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    static func methodLabel(_ method: String) -> String {
        knownMethods.contains(method) ? method : "OTHER"
    }

    package func recordRequest(method: String, route: String, status: Int, seconds: Double) {
        let method = Self.methodLabel(method)
        state.withLock { state in
            state.requests[RequestKey(method: method, route: route, status: status), default: 0] += 1
            state.latency[route, default: Histogram()].observe(seconds, bounds: Self.latencyBuckets)
        }
    }

    /// One push attempt's result: by token kind (`update`, `push_to_start`, …), the state it left
    /// the row in, the service's reason if any, and the push service it went to.
    package func recordPush(kind: TokenKind, state: PushState, reason: String?, service: PushService) {
        self.state.withLock {
            $0.pushes[PushKey(kind: kind, state: state, reason: reason ?? "", service: service), default: 0] += 1
        }
    }

    /// The state a push attempt is counted in: how its row ended, or `queued` when it waits
    /// for another attempt.
    package enum PushState: Sendable, Hashable {
        case finished(DeliveryState)
        case queued

        var label: String {
            switch self {
            case .finished(let state): state.rawValue
            case .queued: "queued"
            }
        }
    }

    /// One job's push results, counted locally and recorded under the lock once: a job holds a
    /// thousand pushes, and a lock plus a hashed key per push showed up in the engine's profile.
    package struct PushTally: Sendable {
        fileprivate var pushes: [PushKey: UInt64] = [:]
        /// Queue-to-accepted seconds (by service) → how many accepted pushes waited that long.
        fileprivate var latencies: [LatencyKey: UInt64] = [:]

        package init() {}

        /// As `recordPush`.
        package mutating func add(kind: TokenKind, state: PushState, reason: String?, service: PushService) {
            pushes[PushKey(kind: kind, state: state, reason: reason ?? "", service: service), default: 0] += 1
        }

        /// As `recordDeliveryLatency`.
        package mutating func addLatency(_ seconds: Double, service: PushService) {
            latencies[LatencyKey(service: service, seconds: seconds), default: 0] += 1
        }
    }

    package func record(_ tally: PushTally) {
        guard !tally.pushes.isEmpty || !tally.latencies.isEmpty else { return }
        state.withLock { state in
            for (key, count) in tally.pushes { state.pushes[key, default: 0] += count }
            for (key, count) in tally.latencies {
                state.deliveryLatency[key.service, default: Histogram(buckets: Self.deliveryBuckets.count)]
                    .observe(key.seconds, bounds: Self.deliveryBuckets, times: count)
            }
        }
    }

    /// A message failed as a whole: its audience could not be expanded (`expansion`) or its
    /// stored request no longer decodes (`build`).
    package func recordFailedMessage(stage: String) {
        state.withLock { $0.failedMessages[stage, default: 0] += 1 }
    }

    /// Time from a delivery's creation to its push service (APNs or FCM) accepting it.
    package func recordDeliveryLatency(_ seconds: Double, service: PushService) {
        state.withLock {
            $0.deliveryLatency[service, default: Histogram(buckets: Self.deliveryBuckets.count)]
                .observe(seconds, bounds: Self.deliveryBuckets)
        }
    }

    /// The exposition text; `gauges` are point-in-time values read by the caller (pool state).
    package func render(gauges: [Gauge] = []) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP openpush_http_requests_total HTTP requests answered, by method, route template and status.")
        lines.append("# TYPE openpush_http_requests_total counter")
        let requestKeys = snapshot.requests.keys.sorted {
            ($0.route, $0.method, $0.status) < ($1.route, $1.method, $1.status)
        }
        for key in requestKeys {
            let labels = "method=\"\(escape(key.method))\",route=\"\(escape(key.route))\",status=\"\(key.status)\""
            lines.append("openpush_http_requests_total{\(labels)} \(snapshot.requests[key]!)")
        }
        lines.append("# HELP openpush_http_request_duration_seconds Time to answer an HTTP request, by route template.")
        lines.append("# TYPE openpush_http_request_duration_seconds histogram")
        for route in snapshot.latency.keys.sorted() {
            let histogram = snapshot.latency[route]!
            let label = "route=\"\(escape(route))\""
            for (index, bound) in Self.latencyBuckets.enumerated() {
                lines.append("openpush_http_request_duration_seconds_bucket{\(label),le=\"\(format(bound))\"} \(histogram.bucketCounts[index])")
            }
            lines.append("openpush_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.count)")
            lines.append("openpush_http_request_duration_seconds_sum{\(label)} \(format(histogram.sum))")
            lines.append("openpush_http_request_duration_seconds_count{\(label)} \(histogram.count)")
        }
        lines.append("# HELP openpush_pushes_total Push attempts, by token kind, resulting state, the service's reason and push service (apns, fcm, webpush).")
        lines.append("# TYPE openpush_pushes_total counter")
        for key in snapshot.pushes.keys.sorted(by: { $0.sortKey < $1.sortKey }) {
            let labels = "kind=\"\(key.kind.rawValue)\",state=\"\(key.state.label)\",reason=\"\(escape(key.reason))\","
                + "service=\"\(key.service.rawValue)\""
            lines.append("openpush_pushes_total{\(labels)} \(snapshot.pushes[key]!)")
        }
        lines.append("# HELP openpush_messages_failed_total Messages that failed as a whole, by the stage that failed.")
        lines.append("# TYPE openpush_messages_failed_total counter")
        for stage in ["build", "expansion"] {
            lines.append("openpush_messages_failed_total{stage=\"\(stage)\"} \(snapshot.failedMessages[stage] ?? 0)")
        }
        lines.append("# HELP openpush_delivery_latency_seconds From a delivery's creation to its push service (apns, fcm, webpush) accepting it.")
        lines.append("# TYPE openpush_delivery_latency_seconds histogram")
        // Every service's series, empty ones too, so a dashboard finds FCM's before its first push.
        for service in PushService.allCases {
            let histogram = snapshot.deliveryLatency[service] ?? Histogram(buckets: Self.deliveryBuckets.count)
            let label = "service=\"\(service.rawValue)\""
            for (index, bound) in Self.deliveryBuckets.enumerated() {
                lines.append("openpush_delivery_latency_seconds_bucket{\(label),le=\"\(format(bound))\"} \(histogram.bucketCounts[index])")
            }
            lines.append("openpush_delivery_latency_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.count)")
            lines.append("openpush_delivery_latency_seconds_sum{\(label)} \(format(histogram.sum))")
            lines.append("openpush_delivery_latency_seconds_count{\(label)} \(histogram.count)")
        }
        lines += webhooks.renderCounters()
        for gauge in gauges + registeredGauges {
            lines.append("# HELP \(gauge.name) \(gauge.help)")
            lines.append("# TYPE \(gauge.name) gauge")
            lines.append("\(gauge.name) \(format(gauge.value))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func escape(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
