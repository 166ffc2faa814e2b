import HTTPServer
import OpenPushCore
import OpenPushDelivery

extension SubscriptionRoutes {
    /// `POST /v1/apps/{app_id}/subscriptions`: registers a device (`201`) or refreshes it (`200`).
    @Sendable static func registerDevice(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        let registration = try SubscriptionRegistration(body: body)
        let registered = try await SubscriptionStore.register(registration, app: app, deviceKey: context.deviceKey,
                                                              now: context.services.now(), in: context.services.database)
        return .json(["id": .string(registered.id), "created": .bool(registered.created)],
                     status: registered.created ? 201 : 200)
    }

    /// `POST /v1/apps/{app_id}/subscriptions/retire` with `{"token": …}`. A device already
    /// retired is unknown, as on every other `/v1` route; on a shared demo app the device's
    /// `X-OP-Device-Key` is required.
    @Sendable static func retireDevice(_ context: RouteContext) async throws -> HTTPResponse {
        let (app, body) = try await context.nativeRequest()
        var reader = FieldReader(body)
        let token = reader.deviceToken("token", required: true)
        reader.rejectUnknownFields()
        try reader.finish()
        try await DeviceService.retire(app: app, token: token ?? "", deviceKey: context.deviceKey, now: context.services.now(),
                                       in: context.services.database)
        return .json(["ok": true])
    }
}
