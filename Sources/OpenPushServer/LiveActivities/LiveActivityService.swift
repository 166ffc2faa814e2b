import OpenPushCore
import OpenPushDelivery
import Postgres

/// The native Live Activity use cases, each one transaction: the device is found by its push
/// token (`NativeDevice`), then its activity or push-to-start token is written.
enum LiveActivityService {
    static let unknownDevice = "unknown device token for this app — register the device before its Live Activities"

    /// What a device registers an activity's update token with.
    struct UpdateToken: Sendable {
        var activityID: String
        var activityType: String?
        var updateToken: String
        var requestedStaleAt: Double?
    }

    /// Registers (or refreshes) the device's activity and appends `live_activity.registered`.
    /// On a shared demo app an activity id another device holds is refused (`403`): ids are
    /// chosen by apps, not secrets.
    static func register(_ input: UpdateToken, app: AppRecord, token: String, deviceKey: String?, now: Double,
                         in database: PostgresPool) async throws -> LiveActivityRegistration {
        try await database.transaction { connection in
            let device = try NativeDevice.findLiveActivityDevice(app: app, token: token, deviceKey: deviceKey,
                                                                 unknownMessage: unknownDevice, in: connection)
            if app.sharedDemo, try LiveActivityStore.isHeldByAnotherDevice(
                appID: app.id, subscriptionID: device.subscriptionID, activityID: input.activityID, in: connection) {
                throw APIError(status: 403,
                               "live activity '\(input.activityID)' belongs to another device — an activity id is not a capability")
            }
            let registration = try LiveActivityStore.register(
                appID: app.id, subscriptionID: device.subscriptionID, activityID: input.activityID,
                activityType: input.activityType.flatMap { $0.isEmpty ? nil : $0 }, updateToken: input.updateToken.lowercased(),
                requestedStaleAt: input.requestedStaleAt, now: now, in: connection)
            try EventOutbox.append([OutboundEvent(type: .liveActivityRegistered, appID: app.id, data: EventData.liveActivityRegistered(
                activityID: input.activityID, activityType: registration.activityType, subscriptionID: device.subscriptionID,
                created: registration.created))], in: connection)
            return registration
        }
    }

    /// Ends the device's activity; false when the device has none by that id.
    static func end(activityID: String, app: AppRecord, token: String, deviceKey: String?, now: Double,
                    in database: PostgresPool) async throws -> Bool {
        try await database.transaction { connection in
            let device = try NativeDevice.findLiveActivityDevice(app: app, token: token, deviceKey: deviceKey, in: connection)
            return try LiveActivityStore.end(appID: app.id, subscriptionID: device.subscriptionID, activityID: activityID,
                                             reason: .device, now: now, in: connection)
        }
    }

    /// Registers the device's push-to-start token for an activity type: its row id, and
    /// whether it is new.
    static func registerPushToStart(activityType: String, pushToStartToken: String, app: AppRecord, token: String,
                                    deviceKey: String?, now: Double,
                                    in database: PostgresPool) async throws -> (id: String, created: Bool) {
        try await database.transaction { connection in
            let device = try NativeDevice.findLiveActivityDevice(app: app, token: token, deviceKey: deviceKey, in: connection)
            return try PushToStartStore.register(appID: app.id, subscriptionID: device.subscriptionID,
                                                 activityType: activityType, token: pushToStartToken.lowercased(),
                                                 now: now, in: connection)
        }
    }

    /// Removes the device's push-to-start token for an activity type; false when it had none.
    static func removePushToStart(activityType: String, app: AppRecord, token: String, deviceKey: String?,
                                  in database: PostgresPool) async throws -> Bool {
        try await database.transaction { connection in
            let device = try NativeDevice.findLiveActivityDevice(app: app, token: token, deviceKey: deviceKey, in: connection)
            return try PushToStartStore.remove(appID: app.id, subscriptionID: device.subscriptionID,
                                               activityType: activityType, in: connection)
        }
    }
}
