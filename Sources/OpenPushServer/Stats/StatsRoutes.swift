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
    /// 0 when empty), the window's totals, by push service too, then the queue depth and this
    /// process's APNs connections now.
    @Sendable static func throughput(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let request = try ThroughputRequest.read(context.request.query)
        let services = context.services
        let buckets = request.buckets(now: services.now())
        let counted = try await StatsStore.throughput(buckets, in: services.database)
        let depth = try await DeliveryQueue.depth(in: services.database)
        let series = buckets.fill(StatsBuckets.sum(counted))
        // Every service, with zeros for one that sent nothing, so a dashboard finds each key.
        let byService = PushService.allCases.map { service in
            let part = buckets.fill(counted[service] ?? [:])
            return (service.rawValue, JSONValue.object(["accepted": .int(part.reduce(0) { $0 + $1.accepted }),
                                                       "failed": .int(part.reduce(0) { $0 + $1.failed })]))
        }
        return .json([
            "window_seconds": .int(request.window),
            "step_seconds": .int(request.step),
            "from": .int(buckets.first),
            "to": .int(buckets.end),
            "buckets": .array(series.map { ["at": .int($0.at), "accepted": .int($0.accepted), "failed": .int($0.failed)] }),
            "totals": ["accepted": .int(series.reduce(0) { $0 + $1.accepted }),
                       "failed": .int(series.reduce(0) { $0 + $1.failed })],
            "by_service": .object(JSONObject(byService)),
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
    /// accepted, failed, suppressed and clicked, the errors by reason, the same by push service
    /// (every service, zeros included), and its `apns_status`.
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
            "sent": .int(figures.total.sent),
            "accepted": .int(figures.total.accepted),
            "failed": .int(figures.total.failed),
            "suppressed": .int(figures.total.suppressed),
            "clicked": .int(figures.total.clicked),
            "errors_by_reason": errorsByReason(figures.total),
            "by_service": .object(JSONObject(PushService.allCases.map { service in
                let part = figures.byService[service] ?? StatsFigures()
                return (service.rawValue, JSONValue.object([
                    "sent": .int(part.sent), "accepted": .int(part.accepted), "failed": .int(part.failed),
                    "suppressed": .int(part.suppressed), "clicked": .int(part.clicked),
                    "errors_by_reason": errorsByReason(part),
                ]))
            })),
            "apns_status": app.apnsStatus(now: services.now()),
        ], headers: ["Cache-Control": "no-store"])
    }

    /// Reason → records, most frequent first.
    static func errorsByReason(_ figures: StatsFigures) -> JSONValue {
        .object(JSONObject(figures.reasonsByFrequency.map { ($0.reason, JSONValue.int($0.count)) }))
    }
}
