import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// The two server send routes: start, and update or end, across an audience. They answer in
/// OneSignal's `{"errors": […]}` shape, share one rate limit, and only queue deliveries: the
/// workers send them after the service commits (`LiveActivitySendService`).
enum LiveActivitySendRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/activities/activity/{activity_type}", start)
        router.add(.post, "/apps/{app_id}/live_activities/{activity_id}/notifications", updateOrEnd)
    }

    @Sendable static func start(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let activityType = context.pathParameter("activity_type")
        let body = requestBody(context)
        let outcome = try await LiveActivitySendService.start(
            body.flatMap { LiveActivitySendParser.parseStart($0).mapError(APIError.init) }, request: (try? body.get()) ?? [:], activityType: activityType,
            principal: principal, now: context.services.now(), database: context.services.database)
        return try outcome.response()
    }

    @Sendable static func updateOrEnd(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let activityID = context.pathParameter("activity_id")
        let body = requestBody(context)
        let outcome = try await LiveActivitySendService.updateOrEnd(
            body.flatMap { LiveActivitySendParser.parseUpdateOrEnd($0, activityID: activityID).mapError(APIError.init) },
            request: (try? body.get()) ?? [:], activityID: activityID,
            principal: principal, now: context.services.now(), database: context.services.database)
        return try outcome.response()
    }

    /// The body as a JSON object; anything else is the send's refusal, answered after the rate limit.
    private static func requestBody(_ context: RouteContext) -> Result<JSONObject, APIError> {
        Result { try context.jsonObject() }.mapError { $0 as? APIError ?? .badRequest(SendMessages.bodyMustBeObject) }
    }
}
