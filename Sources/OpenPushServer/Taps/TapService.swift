import OpenPushCore
import OpenPushDelivery
import Postgres

/// A device reporting a tap, each in one transaction: the device is found by its push token
/// (`NativeDevice`), then the tap is counted against what reached it.
enum TapService {
    /// A tap on an ordinary notification.
    static func opened(app: AppRecord, token: String, deviceKey: String?, messageID: String, now: Double,
                       in database: PostgresPool) async throws -> OpenedStore.Outcome {
        try await database.transaction { connection in
            let device = try NativeDevice.find(app: app, token: token, deviceKey: deviceKey, in: connection)
            return try OpenedStore.record(appID: app.id, messageID: messageID, subscriptionID: device.subscriptionID,
                                          now: now, in: connection)
        }
    }

    /// A tap on a Live Activity; false when no push of it reached this device (`ClickStore`).
    static func clicked(app: AppRecord, token: String, deviceKey: String?, activityID: String, messageID: String?,
                        activityType: String?, now: Double, in database: PostgresPool) async throws -> Bool {
        try await database.transaction { connection in
            let device = try NativeDevice.findLiveActivityDevice(app: app, token: token, deviceKey: deviceKey, in: connection)
            return try ClickStore.record(appID: app.id, subscriptionID: device.subscriptionID, activityID: activityID,
                                         messageID: messageID, activityType: activityType, now: now, in: connection)
        }
    }
}
