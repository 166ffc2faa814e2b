import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `POST /v1/apps/{app_id}/notifications/{notification_id}/opened`: a device reports a tap on an
/// ordinary notification, with the app's SDK key and its push token (as the Live Activity click).
enum OpenedRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/v1/apps/{app_id}/notifications/{notification_id}/opened", opened)
    }

    @Sendable static func opened(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, token) = try await context.nativeTokenRequest()
        let messageID = context.pathParameter("notification_id")
        switch try await TapService.opened(app: app, token: token, deviceKey: context.deviceKey, messageID: messageID,
                                           now: context.services.now(), in: context.services.database) {
        case .counted:
            return .json(["ok": true])
        case .unknownMessage:
            throw APIError.notFound("notification '\(messageID)' not found")
        case .notDelivered:
            throw APIError.notFound("notification '\(messageID)' has not reached this device — no tap to count")
        }
    }
}
