import HTTPServer
import OpenPushCore
import OpenPushDelivery

extension SubscriptionRoutes {
    /// `POST /v1/apps/{app_id}/subscriptions/tokens` with `{"token", "kind", "push_token"}`:
    /// registers the device's token of that kind (`201`) or replaces it (`200`).
    @Sendable static func registerExtraToken(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        let input = try ExtraTokenInput(body: body, registering: true)
        let tokens = try await DeviceService.registerExtraToken(input, app: app, deviceKey: context.deviceKey,
                                                                now: context.services.now(), in: context.services.database)
        var answer = tokens.json(app: app, kind: input.kind)
        answer["created"] = .bool(tokens.created)
        return .json(.object(answer), status: tokens.created ? 201 : 200)
    }

    /// `POST /v1/apps/{app_id}/subscriptions/tokens/remove` with `{"token", "kind"}`.
    @Sendable static func removeExtraToken(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        let input = try ExtraTokenInput(body: body, registering: false)
        guard let tokens = try await DeviceService.removeExtraToken(input, app: app, deviceKey: context.deviceKey,
                                                                    in: context.services.database)
        else { throw APIError.notFound("no \(input.kind.rawValue) token on this device") }
        var answer = tokens.json(app: app, kind: input.kind)
        answer["ok"] = true
        return .json(.object(answer))
    }
}

extension DeviceService.ExtraTokens {
    fileprivate func json(app: AppRecord, kind: ExtraTokenKind) -> JSONObject {
        ["subscription_id": .string(subscriptionID), "app": .string(app.id), "kind": .string(kind.rawValue),
         "push_token_kinds": SubscriptionRecord.kinds(kinds)]
    }
}
