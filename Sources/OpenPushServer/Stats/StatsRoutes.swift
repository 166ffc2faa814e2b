import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// Read-only figures for operators (the console's Apps and Live pages), with the organization
/// key: a throughput series over every app, and one app's totals over a window.
enum StatsRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/stats/throughput", throughput)
        router.add(.get, "/apps/{app_id}/stats", app)
    }

    /// Per `step` bucket of the last `window`: pushes accepted and failed (every bucket present,
    /// 0 when empty), then the queue depth and this process's APNs connections now.
    @Sendable static func throughput(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let request = try ThroughputRequest.read(context.request.query)
        let services = context.services
        let buckets = request.buckets(now: services.now())
        let counted = try await StatsStore.throughput(buckets, in: services.database)
        let depth = try await DeliveryQueue.depth(in: services.database)
        let series = buckets.fill(counted)
        return .json([
            "window_seconds": .int(request.window),
            "step_seconds": .int(request.step),
            "from": .int(buckets.first),
            "to": .int(buckets.end),
            "buckets": .array(series.map { ["at": .int($0.at), "accepted": .int($0.accepted), "failed": .int($0.failed)] }),
            "totals": ["accepted": .int(series.reduce(0) { $0 + $1.accepted }),
                       "failed": .int(series.reduce(0) { $0 + $1.failed })],
            "queue_depth": .int(Int64(depth)),
            "apns_connections": .int(Int64(apnsConnections(services))),
        ], headers: ["Cache-Control": "no-store"])
    }

    /// The APNs connections this process holds open now (0 when it runs no delivery workers).
    static func apnsConnections(_ services: Services) -> Int {
        let gauges = services.metrics.registeredGauges.filter { $0.name == "openpush_apns_connections_open" }
        return Int(gauges.reduce(0) { $0 + $1.value })
    }

    /// One app over the last `window` (24 hours unless given): its devices, what was sent,
    /// accepted, failed, suppressed and clicked, the errors by reason, and its `apns_status`.
    @Sendable static func app(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let id = context.pathParameter("app_id")
        let request = try AppStatsRequest.read(context.request.query)
        let services = context.services
        let range = request.range(now: services.now())
        let found = try await StatsStore.app(id, from: range.from, to: range.to, in: services.database)
        guard let (app, figures) = found else { throw Authentication.unknownApp(id) }
        return .json([
            "app_id": .string(app.id),
            "window_seconds": .int(request.window),
            "from": .int(range.from),
            "to": .int(range.to),
            "devices": .int(figures.devices),
            "subscribed": .int(figures.subscribed),
            "sent": .int(figures.sent),
            "accepted": .int(figures.accepted),
            "failed": .int(figures.failed),
            "suppressed": .int(figures.suppressed),
            "clicked": .int(figures.clicked),
            "errors_by_reason": .object(JSONObject(figures.errorsByReason.map { ($0.reason, JSONValue.int($0.count)) })),
            "apns_status": app.apnsStatus(now: services.now()),
        ], headers: ["Cache-Control": "no-store"])
    }
}
