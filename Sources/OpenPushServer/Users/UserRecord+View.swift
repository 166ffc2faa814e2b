import OpenPushCore
import OpenPushDelivery

extension UserRecord {
    /// Every alias, plus the user's own id under both of its names.
    var identityView: JSONValue {
        var identity = JSONObject(aliases.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        for label in AliasLabel.userID { identity[label] = .string(id) }
        return .object(identity)
    }

    var propertiesView: JSONValue {
        var properties: JSONObject = ["tags": TagChanges.object(tags)]
        if let language { properties["language"] = .string(language) }
        if let timezoneID { properties["timezone_id"] = .string(timezoneID) }
        if let country { properties["country"] = .string(country) }
        return .object(properties)
    }

    /// OneSignal's user view: identity, properties, and the live devices.
    func view(subscriptions: [SubscriptionRecord]) -> JSONValue {
        ["identity": identityView, "properties": propertiesView, "subscriptions": .array(subscriptions.map(\.view))]
    }
}
