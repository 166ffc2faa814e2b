import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// OneSignal's `GET /apps/{app_id}/outcomes` (REST key) and the device's report of a custom
/// outcome, `POST /v1/apps/{app_id}/outcomes` (SDK key).
enum OutcomesRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/apps/{app_id}/outcomes", list)
        router.add(.post, "/v1/apps/{app_id}/outcomes", report)
    }

    /// `{"outcomes": [{"id", "value", "aggregation"}]}`, one per asked name, in the order asked.
    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        // Custom outcomes are added up per app: a shared demo tenant's share cannot be told apart.
        try TenantAccess.requireAppKey(principal, "read outcomes")
        let query = try OutcomeQuery.parse(context.request.query).get()
        let values = try await OutcomeService.values(query, appID: principal.app.id, now: context.services.now(),
                                                     in: context.services.database)
        let outcomes: [JSONValue] = values.map { name, value in
            ["id": .string(name.name), "value": .int(value), "aggregation": .string(name.aggregation.rawValue)]
        }
        return .json(["outcomes": .array(outcomes)])
    }

    @Sendable static func report(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        let report = try OutcomeReport.parse(body).get()
        try await OutcomeService.report(report, app: app, deviceKey: context.deviceKey, now: context.services.now(),
                                        in: context.services.database)
        return .json(["ok": true])
    }
}
