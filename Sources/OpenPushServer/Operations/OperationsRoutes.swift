import HTTPServer
import OpenPushCore
import OpenPushDelivery
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

    /// What a scrape costs: counters and gauges this process keeps in memory, and no query. The
    /// figures only PostgreSQL knows — the queue depth and the webhook backlog by app — are read
    /// by the maintenance loop every `Maintenance.metricsInterval` and served as of then
    /// (`openpush_database_figures_age_seconds` says how long ago), so scrapes, however
    /// frequent, cost the database nothing and answer while it is unreachable.
    @Sendable static func metrics(_ context: RouteContext) async throws -> HTTPResponse {
        try MetricsAccess.require(context.request.headers["Authorization"], token: context.services.configuration.metricsToken)
        let pool = context.services.database.statistics
        let figures = context.services.metrics.databaseFigures
        let text = context.services.metrics.render(gauges: [
            ("openpush_delivery_queue_depth", "Deliveries queued or awaiting an answer (-1 when the database could not be read).",
             figures.map { Double($0.queueDepth) } ?? -1),
            ("openpush_database_figures_age_seconds",
             "Seconds since the queue depth and the webhook backlog were read from the database (-1: not read).",
             figures.map { max(0, context.services.now() - $0.at) } ?? -1),
            ("openpush_db_pool_size", "Largest number of PostgreSQL connections this process opens.", Double(pool.size)),
            ("openpush_db_pool_open", "PostgreSQL connections open now.", Double(pool.open)),
            ("openpush_db_pool_in_use", "PostgreSQL connections lent out now.", Double(pool.inUse)),
            ("openpush_db_pool_waiting", "Callers waiting for a PostgreSQL connection.", Double(pool.waiting)),
        ])
            + (figures.map { WebhookMetrics.renderPending($0.webhookPending) } ?? "")
        return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    @Sendable static func openAPI(_ context: RouteContext) async throws -> HTTPResponse {
        var response = HTTPResponse(status: 200, body: context.services.openAPIDocument)
        response.headers.add(name: "Content-Type", value: "application/json")
        return response
    }
}
