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
        guard let found = try SubscriptionStore.nativeDevice(appID: app.id, token: token, in: connection) else {
            throw APIError.notFound(unknownMessage)
        }
        if app.sharedDemo {
            guard let digest = found.deviceKeyDigest, let deviceKey, KeyMaterial.matches(deviceKey, digest: digest) else {
                throw APIError(status: 401, missingDeviceKey)
            }
        }
        return NativeDevice(app: app, subscriptionID: found.id)
    }
}
