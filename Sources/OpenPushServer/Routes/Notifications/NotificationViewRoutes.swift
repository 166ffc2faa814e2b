import HTTPServer
import OpenPushCore
import Postgres

/// `GET /notifications/{notification_id}?app_id=…`: a message read back with its delivery counts.
enum NotificationViewRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/notifications/{notification_id}", view)
    }

    @Sendable static func view(_ context: RouteContext) async throws -> HTTPResponse {
        guard let appID = context.request.query["app_id"], !appID.isEmpty else {
            throw APIError.badRequest("app_id is required")
        }
        let principal = try await Authentication.requireRESTKey(appID: appID, context)
        let messageID = context.pathParameter("notification_id")
        let view = try await context.services.database.withConnection { connection in
            try MessageView.find(messageID: messageID, appID: principal.app.id, tenantID: principal.tenantID,
                                 in: connection)
        }
        guard let view else { throw APIError.notFound("notification '\(messageID)' not found") }
        return .json(view)
    }
}
