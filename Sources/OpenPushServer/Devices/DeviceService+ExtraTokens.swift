import OpenPushCore
import OpenPushDelivery
import Postgres

/// A device's extra tokens (VoIP and the other PushKit-style kinds), each call one transaction:
/// the device is found by its ordinary token (`NativeDevice`), which must be an Apple one.
extension DeviceService {
    /// What a registration or removal leaves: the device, and the kinds it now holds.
    struct ExtraTokens: Sendable {
        var subscriptionID: String
        /// Registration: whether the kind's token is new (not a replacement).
        var created: Bool
        var kinds: [ExtraTokenKind]
    }

    static let androidExtraToken =
        "this token is an Android device: VoIP, location, push-to-talk, complication and file provider tokens are Apple-only, so it has none"

    static let browserExtraToken =
        "this token is a browser subscription: VoIP, location, push-to-talk, complication and file provider tokens are Apple-only, so it has none"

    static func registerExtraToken(_ input: ExtraTokenInput, app: AppRecord, deviceKey: String?, now: Double,
                                   in database: PostgresPool) async throws -> ExtraTokens {
        guard let pushToken = input.pushToken else { throw InvariantViolation("registration without push_token") }
        return try await database.transaction { connection in
            let device = try appleDevice(input, app: app, deviceKey: deviceKey, in: connection)
            let created = try SubscriptionStore.registerExtraToken(subscriptionID: device.subscriptionID, appID: app.id,
                                                                   kind: input.kind, token: pushToken, now: now, in: connection)
            return ExtraTokens(subscriptionID: device.subscriptionID, created: created,
                               kinds: try SubscriptionStore.extraTokenKinds(subscriptionID: device.subscriptionID, in: connection))
        }
    }

    /// Nil when the device had no token of that kind.
    static func removeExtraToken(_ input: ExtraTokenInput, app: AppRecord, deviceKey: String?,
                                 in database: PostgresPool) async throws -> ExtraTokens? {
        try await database.transaction { connection in
            let device = try appleDevice(input, app: app, deviceKey: deviceKey, in: connection)
            guard try SubscriptionStore.removeExtraToken(subscriptionID: device.subscriptionID, appID: app.id, kind: input.kind,
                                                         in: connection) else { return nil }
            return ExtraTokens(subscriptionID: device.subscriptionID, created: false,
                               kinds: try SubscriptionStore.extraTokenKinds(subscriptionID: device.subscriptionID, in: connection))
        }
    }

    /// An Android device or a browser is as unknown to these routes as no device, with a message that says why.
    private static func appleDevice(_ input: ExtraTokenInput, app: AppRecord, deviceKey: String?,
                                    in connection: PostgresConnection) throws -> NativeDevice {
        let device = try NativeDevice.find(app: app, token: input.token, deviceKey: deviceKey, in: connection)
        switch device.service {
        case .apns: return device
        case .fcm: throw APIError.notFound(androidExtraToken)
        case .webPush: throw APIError.notFound(browserExtraToken)
        }
    }
}
