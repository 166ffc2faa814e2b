import OpenPushCore
import OpenPushDelivery

extension SubscriptionRecord {
    /// OneSignal's subscription type names.
    var oneSignalType: String { platform == "macos" ? "macOSPush" : "iOSPush" }

    /// The subscription as the REST API shows it, OneSignal's names. `enabled` and
    /// `notification_types` say one thing, whether pushes go out (OneSignal's clients read
    /// either): `true`/1, or `false`/-2 when disabled or retired (`retired` tells which).
    var view: JSONValue {
        let subscribed = enabled && !isRetired
        var object: JSONObject = [
            "id": .string(id),
            "type": .string(oneSignalType),
            "token": .string(token),
            "enabled": .bool(subscribed),
            "notification_types": subscribed ? 1 : -2,
            "session_count": .int(Int64(sessionCount)),
            "language": Self.text(language),
            "country": Self.text(country),
            "timezone": Self.text(timezone),
            "app_version": Self.text(appVersion),
            "device_model": Self.text(deviceModel),
            "device_os": Self.text(deviceOS),
            "tags": TagChanges.object(tags),
            "external_id": Self.text(externalID),
            "platform": .string(platform),
            "environment": .string(environment.rawValue),
            "first_session_at": Self.seconds(firstSessionAt),
            "last_session_at": Self.seconds(lastSessionAt),
            "retired_at": retiredAt.map(Self.seconds) ?? .null,
            "retired": .bool(isRetired),
            "hide_details": .bool(hideDetails),
        ]
        object["quiet_hours"] = quietHours?.json ?? .null
        object["muted_threads"] = .array(mutedThreads.map(JSONValue.string))
        return .object(object)
    }

    private static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// Whole unix seconds, as OneSignal reports times.
    private static func seconds(_ value: Double) -> JSONValue { .int(Int64(value.rounded(.down))) }
}
