import HTTPServer
import OpenPushCore
import OpenPushDelivery

extension SubscriptionRoutes {
    /// `POST /v1/apps/{app_id}/subscriptions`: registers a device (`201`) or refreshes it (`200`).
    /// A valid body without `previous_token` — what a device sends on every launch — costs one
    /// statement, the SDK-key check included; anything else (a token refresh, or a body in error,
    /// whose answer must still be the `404`/`401` when the app or key is wrong) takes the checks
    /// first, then the full registration. A browser subscription (`platform` `web`, its keys
    /// beside the endpoint) always takes the full registration.
    @Sendable static func registerDevice(_ context: RouteContext) async throws -> HTTPResponse {
        let rules = WebPushSubscriptionRules(context.services.configuration)
        if let registration = try? SubscriptionRegistration(body: context.jsonObject(), web: rules),
           registration.previousToken == nil, registration.web == nil {
            let appID = context.pathParameter("app_id")
            let outcome = try await SubscriptionStore.registerInOneStatement(
                registration, appID: appID, presentedSDKKey: context.request.headers["X-OP-SDK-Key"],
                deviceKey: context.deviceKey, now: context.services.now(), in: context.services.database)
            switch outcome {
            case .unknownApp: throw Authentication.unknownApp(appID)
            case .badSDKKey: throw APIError(status: 401, Authentication.badSDKKey)
            case .missingDeviceKey: throw APIError(status: 401, NativeDevice.missingDeviceKey)
            case .registered(let registered): return registered.response
            }
        }
        let (app, body) = try await context.nativeRequest()
        let registration = try SubscriptionRegistration(body: body, web: rules)
        let registered = try await SubscriptionStore.register(registration, app: app, deviceKey: context.deviceKey,
                                                              now: context.services.now(), in: context.services.database)
        return registered.response
    }

    /// `POST /v1/apps/{app_id}/subscriptions/retire` with `{"token": …}`. A device already
    /// retired is unknown, as on every other `/v1` route; on a shared demo app the device's
    /// `X-OP-Device-Key` is required.
    @Sendable static func retireDevice(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        var reader = FieldReader(body)
        let token = reader.deviceTokenLookup("token", required: true)
        reader.rejectUnknownFields()
        try reader.finish()
        try await DeviceService.retire(app: app, token: token ?? "", deviceKey: context.deviceKey, now: context.services.now(),
                                       in: context.services.database)
        return .json(["ok": true])
    }
}

extension RegisteredSubscription {
    fileprivate var response: HTTPResponse {
        .json(["id": .string(id), "created": .bool(created)], status: created ? 201 : 200)
    }
}
