import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `GET /notifications/{notification_id}?app_id=…`: a message read back with its delivery counts.
enum NotificationViewRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/notifications/{notification_id}", view)
    }

    /// The caller of a route that reads one message: `app_id` in the query, as OneSignal passes
    /// it, and that app's REST key (or one of its tenants').
    static func reader(_ context: RouteContext) async throws -> RESTPrincipal {
        guard let appID = context.request.query["app_id"], !appID.isEmpty else {
            throw APIError.badRequest("app_id is required")
        }
        return try await Authentication.requireRESTKey(appID: appID, context)
    }

    @Sendable static func view(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await reader(context)
        let messageID = context.pathParameter("notification_id")
        let view = try await NotificationService.view(messageID: messageID, principal: principal,
                                                      database: context.services.database)
        guard let view else { throw APIError.notFound("notification '\(messageID)' not found") }
        return .json(view)
    }
}
