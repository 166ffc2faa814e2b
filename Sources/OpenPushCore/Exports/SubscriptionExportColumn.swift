/// A column of the subscriptions CSV: OneSignal's names, where OpenPush has the data.
package enum SubscriptionExportColumn: String, Sendable, CaseIterable {
    case id, identifier
    case externalUserID = "external_user_id"
    case deviceType = "device_type"
    case language, timezone
    case sessionCount = "session_count"
    case createdAt = "created_at"
    case lastActive = "last_active"
    case invalidIdentifier = "invalid_identifier"
    case tags
    // OneSignal's `extra_fields` that OpenPush has data for.
    case country
    case notificationTypes = "notification_types"
    case deviceModel = "device_model"
    case deviceOS = "device_os"
    case gameVersion = "game_version"
    case badgeCount = "badge_count"

    /// Every file has these, in this order.
    package static let defaults: [SubscriptionExportColumn] = [
        .id, .identifier, .externalUserID, .deviceType, .language, .timezone, .sessionCount, .createdAt, .lastActive,
        .invalidIdentifier, .tags,
    ]

    /// What `extra_fields` may add.
    package static let extras: [SubscriptionExportColumn] = [.country, .notificationTypes, .deviceModel, .deviceOS, .gameVersion,
                                                              .badgeCount]

    /// OneSignal's `extra_fields` for data OpenPush does not hold: accepted, and named as ignored.
    package static let unsupportedExtras: Set<String> = ["location", "rooted", "ip", "web_auth", "web_p256", "unsubscribed_where",
                                                         "unsubscribed_at", "test_type", "sdk", "ad_id", "playtime",
                                                         "amount_spent"]
}

/// OneSignal's `device_type` number for an OpenPush platform: 0 iOS (watchOS devices run iOS's
/// SDK and count as iOS), 1 Android, 9 macOS, and for a browser (`web`) its stored `web_type`'s,
/// as OneSignal's web SDK registers them: 5 Chrome (and any Chromium browser without a type of
/// its own), 8 Firefox, 12 Edge, 17 Safari through Web Push (7 is Safari's older push, which
/// OpenPush does not send).
package enum OneSignalDeviceType {
    package static func of(platform: String, webType: String? = nil) -> Int {
        switch platform {
        case "macos": 9
        case "android": 1
        case "web":
            switch webType.flatMap(WebPushBrowser.init(oneSignalType:)) {
            case .firefox: 8
            case .edge: 12
            case .safari: 17
            case .chrome, nil: 5
            }
        default: 0
        }
    }
}
