import HTTPServer
import OpenPushCore
import Postgres

extension SubscriptionRoutes {
    static let unknownToken = "unknown device token for this app"

    /// `POST /v1/apps/{app_id}/subscriptions`: registers a device (`201`) or refreshes it (`200`).
    @Sendable static func registerDevice(_ context: RouteContext) async throws -> HTTPResponse {
        let app = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
        let registration = try SubscriptionRegistration(body: try context.jsonObject())
        let registered = try await SubscriptionStore.register(registration, appID: app.id, now: context.services.now(),
                                                              in: context.services.database)
        return .json(["id": .string(registered.id), "created": .bool(registered.created)],
                     status: registered.created ? 201 : 200)
    }

    /// `POST /v1/apps/{app_id}/subscriptions/retire` with `{"token": …}`.
    @Sendable static func retireDevice(_ context: RouteContext) async throws -> HTTPResponse {
        let app = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
        var reader = FieldReader(try context.jsonObject())
        let token = reader.deviceToken("token", required: true)
        reader.rejectUnknownFields()
        try reader.finish()
        let now = context.services.now()
        let retired = try await context.services.database.transaction { connection -> Bool in
            guard let token, let subscription = try SubscriptionStore.find(token: token, appID: app.id, in: connection) else {
                return false
            }
            try SubscriptionStore.retire(subscriptionID: subscription.id, now: now, in: connection)
            return true
        }
        guard retired else { throw APIError.notFound(unknownToken) }
        return .json(["ok": true])
    }
}
