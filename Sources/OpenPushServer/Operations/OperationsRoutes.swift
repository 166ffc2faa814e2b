import HTTPServer
import OpenPushCore
import Postgres

/// `/health`, `/ready`, `/metrics`, `/openapi.json`: what an operator and a load balancer read.
enum OperationsRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/health", health)
        router.add(.get, "/ready", ready)
        router.add(.get, "/metrics", metrics)
        router.add(.get, "/openapi.json", openAPI)
    }

    /// The process is alive; says nothing about the database.
    @Sendable static func health(_ context: RouteContext) async throws -> HTTPResponse {
        .json(["status": "ok"])
    }

    /// Ready when the database answers and every migration this binary knows is applied.
    @Sendable static func ready(_ context: RouteContext) async throws -> HTTPResponse {
        let services = context.services
        do {
            let upToDate = try await Migrator(pool: services.database).isUpToDate(services.migrations)
            guard upToDate else {
                return .json(["status": "unavailable", "reason": "migrations are not applied"], status: 503)
            }
            return .json(["status": "ready"])
        } catch {
            context.logger.warning("readiness check failed", ["error": String(describing: error)])
            return .json(["status": "unavailable", "reason": "the database is unavailable"], status: 503)
        }
    }

    /// What a scrape costs: counters and gauges this process keeps in memory, plus one query,
    /// the queue depth. That counts only unfinished deliveries through the claim index (its
    /// predicate, `finished_at IS NULL`), so it grows with the backlog, never with the history
    /// of deliveries, messages or subscriptions. The webhook backlog is counted the same way: from
    /// each enabled endpoint's cursor through `(app_id, seq)`, capped. Nothing else here may count a table per scrape
    /// (figures like those belong in the maintenance loop, or an estimate from `pg_class`).
    @Sendable static func metrics(_ context: RouteContext) async throws -> HTTPResponse {
        try MetricsAccess.require(context.request.headers["Authorization"], token: context.services.configuration.metricsToken)
        let pool = context.services.database.statistics
        let queueDepth = (try? await DeliveryQueue.depth(in: context.services.database)).map(Double.init) ?? -1
        let text = context.services.metrics.render(gauges: [
            ("openpush_delivery_queue_depth", "Deliveries queued or awaiting an answer (-1 when the database is unreachable).", queueDepth),
            ("openpush_db_pool_size", "Largest number of PostgreSQL connections this process opens.", Double(pool.size)),
            ("openpush_db_pool_open", "PostgreSQL connections open now.", Double(pool.open)),
            ("openpush_db_pool_in_use", "PostgreSQL connections lent out now.", Double(pool.inUse)),
            ("openpush_db_pool_waiting", "Callers waiting for a PostgreSQL connection.", Double(pool.waiting)),
        ])
            + ((try? await WebhookDispatchStore.pendingByApp(in: context.services.database)).map(WebhookMetrics.renderPending) ?? "")
        return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    @Sendable static func openAPI(_ context: RouteContext) async throws -> HTTPResponse {
        var response = HTTPResponse(status: 200, body: context.services.openAPIDocument)
        response.headers.add(name: "Content-Type", value: "application/json")
        return response
    }
}
