import OpenPushCore
import OpenPushDelivery

extension RouteContext {
    /// The SDK-key check, then the body as an object: what every native route starts with.
    func nativeRequest() async throws -> (app: AppRecord, body: JSONObject) {
        let app = try await Authentication.requireSDKKey(appID: pathParameter("app_id"), self)
        return (app, try jsonObject())
    }

    /// A native request whose body is the device's `{"token"}` alone.
    func nativeTokenRequest() async throws -> (app: AppRecord, token: String) {
        let (app, body) = try await nativeRequest()
        var reader = FieldReader(body)
        let token = reader.string("token", required: true)
        try reader.finish()
        guard let token else { throw InvariantViolation("validated token missing") }
        return (app, token)
    }

    var deviceKey: String? { request.headers["X-OP-Device-Key"] }
}
