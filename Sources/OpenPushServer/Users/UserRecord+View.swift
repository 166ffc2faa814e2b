import OpenPushCore
import OpenPushDelivery

extension UserRecord {
    /// Every alias, plus the user's own id under both of its names.
    var identityView: JSONValue {
        var identity = JSONObject(aliases.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        for label in AliasLabel.userID { identity[label] = .string(id) }
        return .object(identity)
    }

    /// OneSignal's properties object. A property OpenPush does not know is left out, never
    /// `null` (OneSignal's clients refuse one). `first_active` and `last_active`, when never set,
    /// come from the devices' sessions. `session_count` and `session_time` (what `deltas`
    /// added) are OpenPush's additions.
    func propertiesView(devices: [SubscriptionRecord]) -> JSONValue {
        var properties: JSONObject = ["tags": TagChanges.object(tags)]
        if let language { properties["language"] = .string(language) }
        if let timezoneID { properties["timezone_id"] = .string(timezoneID) }
        if let latitude { properties["lat"] = .double(latitude) }
        if let longitude { properties["long"] = .double(longitude) }
        if let country { properties["country"] = .string(country) }
        if let first = firstActive ?? devices.map(\.firstSessionAt).min().map(Self.seconds) {
            properties["first_active"] = .int(first)
        }
        if let last = lastActive ?? devices.map(\.lastSessionAt).max().map(Self.seconds) {
            properties["last_active"] = .int(last)
        }
        if let amountSpent { properties["amount_spent"] = .double(amountSpent) }
        if !purchases.isEmpty { properties["purchases"] = .array(purchases) }
        if let sessionCount { properties["session_count"] = .int(sessionCount) }
        if let sessionTime { properties["session_time"] = .int(sessionTime) }
        return .object(properties)
    }

    /// OneSignal's user view: identity, properties, and the live devices (`deviceView`).
    func view(subscriptions: [SubscriptionRecord]) -> JSONValue {
        ["identity": identityView, "properties": propertiesView(devices: subscriptions),
         "subscriptions": .array(subscriptions.map(Self.deviceView))]
    }

    /// A device in OneSignal's subscription shape, followed by OpenPush's own fields of the
    /// subscription view that have a value (`tags`, `quiet_hours`, …): OneSignal's clients take
    /// extra fields, but not a `null`.
    static func deviceView(_ device: SubscriptionRecord) -> JSONValue {
        var object = device.oneSignalView.objectValue ?? JSONObject()
        for (key, value) in device.view.objectValue ?? JSONObject() where value != .null && object[key] == nil {
            object[key] = value
        }
        return .object(object)
    }

    private static func seconds(_ time: Double) -> Int64 { Int64(time.rounded(.down)) }
}
