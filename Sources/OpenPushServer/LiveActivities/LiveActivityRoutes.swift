import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Postgres

/// The five native Live Activity routes. Devices speak for themselves with the app's SDK key
/// and their ordinary push token. Unknown body fields are ignored (SDKs add fields over time);
/// fields of the wrong type are a `400`. These routes are never rate-limited.
enum LiveActivityRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/v1/apps/{app_id}/live-activities", registerUpdateToken)
        router.add(.post, "/v1/apps/{app_id}/live-activities/push-to-start", registerPushToStart)
        router.add(.post, "/v1/apps/{app_id}/live-activities/push-to-start/remove", removePushToStart)
        router.add(.post, "/v1/apps/{app_id}/live-activities/{activity_id}/end", end)
        router.add(.post, "/v1/apps/{app_id}/live-activities/{activity_id}/click", click)
    }

    @Sendable static func registerUpdateToken(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        var reader = FieldReader(body)
        let token = reader.string("token", required: true)
        if let problem = LiveActivityInput.activityIDProblem(reader.value("activity_id")) {
            reader.problem(problem)
        }
        let activityType = reader.string("activity_type")
        if let problem = LiveActivityInput.tokenProblem("update_token", reader.value("update_token")) {
            reader.problem(problem)
        }
        var staleAt: Double?
        switch LiveActivityInput.staleAt(reader.value("stale_at")) {
        case .success(let value): staleAt = value
        case .failure(let problem): reader.problem(problem.message)
        }
        try reader.finish()
        guard let token, case .string(let activityID)? = body["activity_id"], case .string(let updateToken)? = body["update_token"]
        else { throw InvariantViolation("validated fields missing") }
        let input = LiveActivityService.UpdateToken(activityID: activityID, activityType: activityType,
                                                    updateToken: updateToken, requestedStaleAt: staleAt)
        let registration = try await LiveActivityService.register(input, app: app, token: token, deviceKey: context.deviceKey,
                                                                  now: context.services.now(), in: context.services.database)
        return .json([
            "id": .string(registration.id),
            "app": .string(app.id),
            "activity_id": .string(activityID),
            "created": .bool(registration.created),
            "started_at": .double(registration.startedAt),
            "stale_at": .double(registration.staleAt),
            "active_until": .double(LiveActivityWindow.activeUntil(startedAt: registration.startedAt)),
            "note": .string(LiveActivityWindow.note),
        ])
    }

    @Sendable static func end(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, token) = try await context.nativeTokenRequest()
        let activityID = context.pathParameter("activity_id")
        guard try await LiveActivityService.end(activityID: activityID, app: app, token: token, deviceKey: context.deviceKey,
                                                now: context.services.now(), in: context.services.database)
        else { throw APIError.notFound("no live activity '\(activityID)' on this device") }
        return .json(["app": .string(app.id), "activity_id": .string(activityID), "ended": true])
    }

    @Sendable static func registerPushToStart(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        var reader = FieldReader(body)
        let token = reader.string("token", required: true)
        let activityType = reader.string("activity_type", required: true)
        if let problem = LiveActivityInput.tokenProblem("push_to_start_token", reader.value("push_to_start_token")) {
            reader.problem(problem)
        }
        try reader.finish()
        guard let token, let activityType, case .string(let pushToStartToken)? = body["push_to_start_token"] else {
            throw InvariantViolation("validated fields missing")
        }
        let (id, created) = try await LiveActivityService.registerPushToStart(
            activityType: activityType, pushToStartToken: pushToStartToken, app: app, token: token,
            deviceKey: context.deviceKey, now: context.services.now(), in: context.services.database)
        return .json(["id": .string(id), "app": .string(app.id), "activity_type": .string(activityType),
                      "created": .bool(created)])
    }

    @Sendable static func removePushToStart(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        var reader = FieldReader(body)
        let token = reader.string("token", required: true)
        let activityType = reader.string("activity_type", required: true)
        try reader.finish()
        guard let token, let activityType else { throw InvariantViolation("validated fields missing") }
        guard try await LiveActivityService.removePushToStart(activityType: activityType, app: app, token: token,
                                                              deviceKey: context.deviceKey, in: context.services.database)
        else { throw APIError.notFound("no push-to-start token for '\(activityType)' on this device") }
        return .json(["ok": true])
    }

    @Sendable static func click(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        let activityID = context.pathParameter("activity_id")
        var reader = FieldReader(body)
        let token = reader.string("token", required: true)
        let messageID = reader.string("notification_id")
        let activityType = reader.string("activity_type")
        try reader.finish()
        guard let token else { throw InvariantViolation("validated token missing") }
        guard try await TapService.clicked(app: app, token: token, deviceKey: context.deviceKey, activityID: activityID,
                                           messageID: messageID.flatMap { $0.isEmpty ? nil : $0 },
                                           activityType: activityType.flatMap { $0.isEmpty ? nil : $0 },
                                           now: context.services.now(), in: context.services.database)
        else { throw APIError.notFound("no live activity push to attribute this click to") }
        return .json(["ok": true])
    }
}
