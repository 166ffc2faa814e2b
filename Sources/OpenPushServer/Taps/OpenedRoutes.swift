import HTTPServer
import OpenPushCore
import Postgres

/// `POST /v1/apps/{app_id}/notifications/{notification_id}/opened`: a device reports a tap on an
/// ordinary notification, with the app's SDK key and its push token (as the Live Activity click).
enum OpenedRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/v1/apps/{app_id}/notifications/{notification_id}/opened", opened)
    }

    @Sendable static func opened(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, token) = try await context.nativeTokenRequest()
        let messageID = context.pathParameter("notification_id")
        let now = context.services.now()
        let deviceKey = context.deviceKey
        try await context.services.database.transaction { connection in
            let device = try NativeDevice.find(app: app, token: token, deviceKey: deviceKey, in: connection)
            switch try OpenedStore.record(appID: app.id, messageID: messageID, subscriptionID: device.subscriptionID,
                                          now: now, in: connection) {
            case .counted:
                return
            case .unknownMessage:
                throw APIError.notFound("notification '\(messageID)' not found")
            case .notDelivered:
                throw APIError.notFound("notification '\(messageID)' has not reached this device — no tap to count")
            }
        }
        return .json(["ok": true])
    }
}
