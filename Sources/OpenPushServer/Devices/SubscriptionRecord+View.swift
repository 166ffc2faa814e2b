import OpenPushCore
import OpenPushDelivery

extension SubscriptionRecord {
    /// OneSignal's subscription type names.
    var oneSignalType: String { OneSignalSubscriptionType.of(platform: platform, webType: webType).rawValue }

    /// The subscription as the REST API shows it, OneSignal's names. `enabled` and
    /// `notification_types` say one thing, whether pushes go out (OneSignal's clients read
    /// either): `true`/1, or `false`/-2 when disabled or retired (`retired` tells which).
    var view: JSONValue {
        // OneSignal's subscription object, then OpenPush's own fields; here an unknown value is `null`.
        var object = oneSignalObject
        object["language"] = Self.text(language)
        object["country"] = Self.text(country)
        object["timezone"] = Self.text(timezone)
        object["app_version"] = Self.text(appVersion)
        object["device_model"] = Self.text(deviceModel)
        object["device_os"] = Self.text(deviceOS)
        object["tags"] = TagChanges.object(tags)
        object["external_id"] = Self.text(externalID)
        object["platform"] = .string(platform)
        object["environment"] = .string(environment.rawValue)
        object["first_session_at"] = Self.seconds(firstSessionAt)
        object["last_session_at"] = Self.seconds(lastSessionAt)
        object["retired_at"] = retiredAt.map(Self.seconds) ?? .null
        object["retired"] = .bool(isRetired)
        object["hide_details"] = .bool(hideDetails)
        object["quiet_hours"] = quietHours?.json ?? .null
        object["muted_threads"] = .array(mutedThreads.map(JSONValue.string))
        object["push_token_kinds"] = Self.kinds(pushTokenKinds)
        return .object(object)
    }

    /// Which extra tokens a device holds, sorted; their values are never shown.
    static func kinds(_ kinds: [ExtraTokenKind]) -> JSONValue {
        .array(kinds.map(\.rawValue).sorted().map(JSONValue.string))
    }

    private static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// Whole unix seconds, as OneSignal reports times.
    private static func seconds(_ value: Double) -> JSONValue { .int(Int64(value.rounded(.down))) }
}
