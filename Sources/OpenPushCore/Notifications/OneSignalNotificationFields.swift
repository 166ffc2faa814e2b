/// The field names of OneSignal's create-notification body (`POST /notifications`), from
/// OneSignal's published API reference, kept in this one place and sorted by what OpenPush does
/// with each. A body key in none of these lists is a typo: the parser's refusal names it. Fields
/// OpenPush does not honour yet are in no list on purpose, so they stay refused instead of being
/// silently dropped.
package enum OneSignalNotificationFields {
    /// Read and applied by `NotificationSendParser` (and `AudienceTargeting`).
    package static let honoured: Set<String> = [
        "app_id", "name", "contents", "headings", "subtitle", "data",
        "ios_badgeType", "ios_badgeCount", "ios_sound", "ios_category", "thread_id", "collapse_id",
        "content_available", "mutable_content", "ios_interruption_level", "ios_relevance_score",
        "priority", "ttl", "send_after", "target_content_identifier",
        "include_aliases", "include_subscription_ids", "included_segments", "excluded_segments", "filters",
        "url", "app_url", "ios_attachments", "buttons", "apns_alert", "apns_push_type_override", "summary_arg",
        "summary_arg_count", "idempotency_key", "external_id",
        "template_id", "custom_data",
        "delayed_option", "delivery_time_of_day", "throttle_rate_per_minute",
    ]

    /// OneSignal's Android fields that become parts of an FCM message (`AndroidNotificationFields`).
    package static let honouredAndroid: Set<String> = [
        "android_channel_id", "existing_android_channel_id", "small_icon", "large_icon", "big_picture", "android_sound",
        "android_accent_color", "android_group",
    ]

    /// OneSignal's web fields that become parts of a browser push (`WebNotificationFields`), and
    /// the browser switches.
    package static let honouredWeb: Set<String> = Set(WebNotificationFields.urlFields + WebNotificationFields.flags + ["web_push_topic"])

    /// Honoured with OneSignal's meaning for a push-only service: `target_channel` must be
    /// `push`, `isIos: false` and `isAndroid: false` leave out Apple's and Android's devices, and
    /// the legacy targeting spellings.
    package static let honouredLegacyAndChannel: Set<String> = [
        "target_channel", "isIos", "isAndroid", "include_player_ids", "include_external_user_ids",
    ]

    /// Fields for other channels (Huawei, Amazon, Windows, email, SMS) and the few Android and web fields with no place in their push: accepted,
    /// ignored, and named in the `OpenPush-Ignored-Fields` response header.
    package static let otherChannels: Set<String> = [
        // platform switches
        "isHuawei", "isWP_WNS", "isAdm", "isChrome",
        // other channels' recipients
        "include_email_tokens", "include_phone_numbers", "include_wp_wns_uris", "include_amazon_reg_ids",
        "include_chrome_reg_ids", "include_chrome_web_reg_ids", "include_android_reg_ids",
        // Android
        // Android fields FCM has no place for
        "android_background_layout", "android_led_color", "android_visibility", "android_group_message",
        // Huawei
        "huawei_msg_type", "huawei_channel_id", "huawei_existing_channel_id", "huawei_small_icon", "huawei_large_icon",
        "huawei_big_picture", "huawei_sound", "huawei_led_color", "huawei_accent_color", "huawei_visibility",
        "huawei_category", "huawei_bi_tag",
        // Amazon
        "adm_small_icon", "adm_large_icon", "adm_big_picture", "adm_sound", "adm_group", "adm_group_message",
        // web fields Web Push has no place for, and Windows
        "web_buttons", "chrome_big_picture", "chrome_icon", "wp_wns_sound",
        // email
        "email_subject", "email_body", "email_from_name", "email_from_address", "email_preheader",
        "email_reply_to_address", "include_unsubscribed", "disable_email_click_tracking",
        // SMS
        "sms_from", "sms_media_urls",
    ]

    /// The other-channel fields a body carries, sorted: the `OpenPush-Ignored-Fields` value.
    package static func ignored(in body: JSONObject) -> [String] {
        body.keys.filter { otherChannels.contains($0) }.sorted()
    }

    /// `OpenPush-Ignored-Fields` for a body: comma-and-space separated, `nil` when nothing was ignored.
    package static func ignoredHeader(for body: JSONObject) -> String? {
        let names = ignored(in: body)
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }
}
