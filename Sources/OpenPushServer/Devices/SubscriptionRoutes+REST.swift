import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Postgres

extension SubscriptionRoutes {
    /// `GET /apps/{app_id}/subscriptions/{subscription_id}`.
    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, id) = try await authorize(context)
        let subscription = try await context.services.database.withConnection { connection in
            try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection)
        }
        return .json(try visible(subscription, id: id, to: principal).view)
    }

    /// `PATCH`: `{"subscription": {"enabled": …, "tags": {…}}}` (bare fields accepted too).
    @Sendable static func update(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, id) = try await authorize(context)
        let changes = try SubscriptionChanges(body: try context.jsonObject())
        let now = context.services.now()
        let updated = try await context.services.database.transaction { connection -> SubscriptionRecord? in
            let found = try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection)
            _ = try visible(found, id: id, to: principal)
            try SubscriptionStore.update(id: id, appID: principal.app.id, changes, now: now, in: connection)
            return try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection)
        }
        return .json(try visible(updated, id: id, to: principal).view)
    }

    /// `DELETE`: retires the device, as the SDK's retire route does.
    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, id) = try await authorize(context)
        let now = context.services.now()
        try await context.services.database.transaction { connection in
            let found = try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection)
            _ = try visible(found, id: id, to: principal)
            try SubscriptionStore.retire(subscriptionID: id, now: now, in: connection)
        }
        return .json(["success": true])
    }

    private static func authorize(_ context: RouteContext) async throws -> (RESTPrincipal, String) {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        return (principal, context.pathParameter("subscription_id"))
    }

    /// A subscription the key may see: one of its app (`404` otherwise, as for an unknown id) and,
    /// for a tenant's key on a shared demo app, one linked to that tenant (`403`).
    static func visible(_ subscription: SubscriptionRecord?, id: String, to principal: RESTPrincipal) throws(APIError)
        -> SubscriptionRecord
    {
        guard let subscription else { throw APIError.notFound("subscription '\(id)' not found") }
        if let tenantID = principal.tenantID, subscription.tenantID != tenantID {
            throw APIError(status: 403, "subscription '\(id)' belongs to another tenant of this app")
        }
        return subscription
    }
}
