import HTTPServer
import OpenPushCore
import OpenPushDelivery

extension TenantsRoutes {
    static let notSharedDemo = "this app is not a shared demo app"

    /// `POST /v1/apps/{app_id}/devices/link` with the SDK key and `{"token", "code"}`: links a
    /// registered device to the tenant owning the code and answers its `X-OP-Device-Key`, shown
    /// this once. Re-linking a linked device needs its current device key and issues a new one.
    @Sendable static func linkDevice(_ context: RouteContext) async throws -> HTTPResponse {
        let app = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
        guard app.sharedDemo else { throw APIError.badRequest(notSharedDemo) }
        var reader = FieldReader(try context.jsonObject())
        let token = reader.deviceTokenLookup("token", required: true)
        let code = reader.string("code", required: true)
        reader.rejectUnknownFields()
        try reader.finish()
        guard let token, let code else { throw InvariantViolation("validated fields missing") }
        let link = try await TenantStore.link(token: token, code: code, deviceKey: context.deviceKey, appID: app.id,
                                              now: context.services.now(), in: context.services.database)
        return .json([
            "device_key": .string(link.deviceKey),
            "tenant_id": .string(link.tenantID),
            "subscription_id": .string(link.subscriptionID),
        ], headers: AppsRoutes.secretHeaders)
    }
}
