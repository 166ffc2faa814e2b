import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// OneSignal's `estimate_notification_recipients`: `POST /notifications/count-unsaved` with a
/// send's targeting (REST key, `app_id` in the body as for a create). Answers
/// `EstimateNotificationRecipientsSuccessResponse`; OpenPush applies no cap and suppresses no
/// mobile devices, so `uncapped_count` is `count`.
enum NotificationEstimateRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/notifications/count-unsaved", estimate)
    }

    @Sendable static func estimate(_ context: RouteContext) async throws -> HTTPResponse {
        let body = try context.jsonObject()
        guard case .string(let requestedAppID)? = body["app_id"], !requestedAppID.isEmpty else {
            throw APIError.badRequest("app_id is required")
        }
        let principal = try await Authentication.requireRESTKey(appID: requestedAppID, context)
        let count = try await NotificationEstimateService.count(body: body, principal: principal, now: context.services.now(),
                                                                database: context.services.database)
        return .json([
            "count": .int(count), "uncapped_count": .int(count), "cap_applied": false, "mobile_suppressed": false,
            "mobile_excluded_count": 0,
        ])
    }
}
