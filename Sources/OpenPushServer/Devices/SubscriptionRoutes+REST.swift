import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Postgres

extension SubscriptionRoutes {
    /// `GET /apps/{app_id}/subscriptions/{subscription_id}`.
    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, id) = try await authorize(context)
        let subscription = try await DeviceService.find(id: id, principal: principal, in: context.services.database)
        return .json(subscription.view)
    }

    /// `PATCH`: `{"subscription": {"enabled": …, "tags": {…}, "token": …}}` (bare fields accepted too).
    @Sendable static func update(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, id) = try await authorize(context)
        let changes = try SubscriptionChanges(body: try context.jsonObject())
        let updated = try await DeviceService.update(id: id, changes, web: WebPushSubscriptionRules(context.services.configuration),
                                                     principal: principal, now: context.services.now(),
                                                     in: context.services.database)
        return .json(updated.view)
    }

    /// `DELETE`: retires the device, as the SDK's retire route does.
    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, id) = try await authorize(context)
        try await DeviceService.retire(id: id, principal: principal, now: context.services.now(), in: context.services.database)
        return .json(["success": true])
    }

    private static func authorize(_ context: RouteContext) async throws -> (RESTPrincipal, String) {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        return (principal, context.pathParameter("subscription_id"))
    }
}
