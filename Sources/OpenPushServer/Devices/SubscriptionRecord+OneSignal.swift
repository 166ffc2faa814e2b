import OpenPushCore
import OpenPushDelivery

extension SubscriptionRecord {
    /// The subscription in OneSignal's user-model shape (`get_user`'s `subscriptions`,
    /// `create_subscription`'s `subscription`): only the fields OneSignal's `Subscription` model
    /// has, and a field OpenPush does not know is left out, never `null` (OneSignal's clients
    /// refuse a `null` in these non-nullable fields).
    var oneSignalView: JSONValue { .object(oneSignalObject) }

    var oneSignalObject: JSONObject {
        let subscribed = enabled && !isRetired
        var object: JSONObject = [
            "id": .string(id),
            "type": .string(oneSignalType),
            "token": .string(token),
            "enabled": .bool(subscribed),
            "notification_types": .int(OneSignalSubscriptionFields.shownNotificationTypes(stored: notificationTypes,
                                                                                          subscribed: subscribed)),
            "session_count": .int(Int64(sessionCount)),
        ]
        if let appVersion { object["app_version"] = .string(appVersion) }
        if let deviceModel { object["device_model"] = .string(deviceModel) }
        if let deviceOS { object["device_os"] = .string(deviceOS) }
        if let sdk { object["sdk"] = .string(sdk) }
        if let sessionTime { object["session_time"] = .int(sessionTime) }
        return object
    }
}
