import OpenPushCore
import OpenPushDelivery
import Postgres

/// The device a native `/v1` call speaks for, found by its ordinary push token.
struct NativeDevice: Sendable {
    var app: AppRecord
    var subscriptionID: String
    /// Decides what the device can do: Live Activities and widgets are Apple's.
    var service: PushService

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
        return NativeDevice(app: app, subscriptionID: found.id, service: PushService(platform: found.platform))
    }

    /// The Live Activity routes' device: an Android device or a browser is as unknown to them as no device,
    /// with a message that says why.
    static func findLiveActivityDevice(app: AppRecord, token: String, deviceKey: String?,
                                       unknownMessage: String = unknownToken,
                                       in connection: PostgresConnection) throws -> NativeDevice {
        let device = try find(app: app, token: token, deviceKey: deviceKey, unknownMessage: unknownMessage, in: connection)
        switch device.service {
        case .apns: break
        case .fcm: throw APIError.notFound(androidLiveActivity)
        case .webPush: throw APIError.notFound(browserLiveActivity)
        }
        return device
    }

    static let androidLiveActivity =
        "this token is an Android device: Live Activities are Apple-only (ActivityKit), so it has none"

    static let browserLiveActivity =
        "this token is a browser subscription: Live Activities are Apple-only (ActivityKit), so it has none"
}
