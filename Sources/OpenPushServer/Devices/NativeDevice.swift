import OpenPushCore
import OpenPushDelivery
import Postgres

/// The device a native `/v1` call speaks for, found by its ordinary push token.
struct NativeDevice: Sendable {
    var app: AppRecord
    var subscriptionID: String

    static let unknownToken = "unknown device token for this app"

    static let missingDeviceKey =
        "this is a shared demo app — send X-OP-Device-Key with the key issued when this device was linked"

    /// The app's subscription with this token (not retired). On a shared demo app the request
    /// must also carry the `X-OP-Device-Key` of that device, since every tenant holds the same
    /// SDK key; on an ordinary app the header is ignored.
    static func find(app: AppRecord, token: String, deviceKey: String?, unknownMessage: String = unknownToken,
                     in connection: PostgresConnection) throws -> NativeDevice {
        let rows = try connection.query("""
            SELECT id, device_key_digest FROM subscriptions
            WHERE app_id = \(app.id) AND token = \(token.lowercased()) AND retired_at IS NULL
            """)
        guard let row = rows.first else { throw APIError.notFound(unknownMessage) }
        if app.sharedDemo {
            let digest: [UInt8]? = try row.decode("device_key_digest")
            guard let digest, let deviceKey, KeyMaterial.matches(deviceKey, digest: digest) else {
                throw APIError(status: 401, missingDeviceKey)
            }
        }
        return NativeDevice(app: app, subscriptionID: try row.decode("id"))
    }
}

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
