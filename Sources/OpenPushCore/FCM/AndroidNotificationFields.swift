/// OneSignal's Android fields of a `POST /notifications` body, and the shared fields an FCM
/// message needs, read and checked. Reads only these keys: every other key of the body is the
/// send parser's business (it is not refused here). Not yet part of the send path.
package struct AndroidNotificationFields: Sendable, Hashable {
    /// `existing_android_channel_id` (the app's own channel), else `android_channel_id`.
    package var channelID: String?
    package var smallIcon: String?
    package var largeIcon: String?
    /// `big_picture`: FCM's `notification.image` takes only a URL.
    package var bigPicture: String?
    /// `android_accent_color` as FCM wants it: `#RRGGBB` (the alpha of OneSignal's ARGB dropped).
    package var accentColor: String?
    package var sound: String?
    /// `android_group`: FCM's `android.notification.tag` (a newer one with the same tag replaces it).
    package var group: String?
    package var collapseID: String?
    /// `priority`: 10 or 5.
    package var priority: Int?
    /// `ttl` in seconds.
    package var ttl: Int?
    /// `app_url` wins over `url`, as for Apple devices.
    package var url: String?
    package var contentAvailable: Bool
    package var data: JSONObject?

    package init(channelID: String? = nil, smallIcon: String? = nil, largeIcon: String? = nil, bigPicture: String? = nil,
                accentColor: String? = nil, sound: String? = nil, group: String? = nil, collapseID: String? = nil,
                priority: Int? = nil, ttl: Int? = nil, url: String? = nil, contentAvailable: Bool = false,
                data: JSONObject? = nil) {
        self.channelID = channelID
        self.smallIcon = smallIcon
        self.largeIcon = largeIcon
        self.bigPicture = bigPicture
        self.accentColor = accentColor
        self.sound = sound
        self.group = group
        self.collapseID = collapseID
        self.priority = priority
        self.ttl = ttl
        self.url = url
        self.contentAvailable = contentAvailable
        self.data = data
    }

    package enum Messages {
        package static let accentColor =
            #"android_accent_color must be an ARGB hex color of 8 digits, e.g. "FF0000FF""#
        package static let bigPicture =
            "big_picture must be a URL with a scheme (https://…), without spaces, at most 2048 bytes: FCM shows an image only from a URL"

        package static func reservedDataKey(_ key: String) -> String {
            "data cannot contain the key '\(key)': FCM reserves it"
        }

        package static func openPushDataKey(_ key: String) -> String {
            "data cannot contain the key '\(key)': OpenPush writes it"
        }

        package static func dataKeyAndField(_ key: String, _ fields: String) -> String {
            "data cannot contain the key '\(key)' with \(fields): OpenPush writes it from there"
        }
    }

    /// Data keys FCM refuses (`from`, `notification`, `message_type`, `google…`, `gcm…`).
    package static let fcmReservedDataKeys: Set<String> = ["from", "notification", "message_type"]
    package static let fcmReservedDataPrefixes = ["google", "gcm"]
    /// Data keys every push carries: the ids the app reports a tap with.
    package static let notificationIDKey = "openpush_notification_id"
    package static let subscriptionIDKey = "openpush_subscription_id"
    /// Data keys OpenPush fills from fields FCM has no place for.
    package static let largeIconKey = "large_icon"
    package static let urlKey = "url"

    /// Reads the fields out of a notification body; every problem, each naming its field, in one
    /// `InvalidInput`.
    package static func parse(_ body: JSONObject) throws(InvalidInput) -> AndroidNotificationFields {
        var reader = FieldReader(body)
        var fields = AndroidNotificationFields()
        let existingChannel = NotificationSendParser.nonBlank(reader.string("existing_android_channel_id"))
        let channel = NotificationSendParser.nonBlank(reader.string("android_channel_id"))
        fields.channelID = existingChannel ?? channel
        fields.smallIcon = NotificationSendParser.nonBlank(reader.string("small_icon"))
        fields.largeIcon = NotificationSendParser.nonBlank(reader.string("large_icon"))
        fields.bigPicture = readBigPicture(&reader)
        fields.accentColor = readAccentColor(&reader)
        fields.sound = NotificationSendParser.nonBlank(reader.string("android_sound"))
        fields.group = NotificationSendParser.nonBlank(reader.string("android_group"))
        fields.collapseID = NotificationSendParser.readCollapseID(&reader)
        fields.priority = LiveActivitySendParser.readPriority(&reader)
        fields.ttl = reader.integer("ttl", in: 0...NotificationSendParser.maximumTTL).map(Int.init)
        fields.url = NotificationSendParser.readLaunchURL(&reader)
        fields.contentAvailable = reader.bool("content_available") ?? false
        fields.data = readData(&reader, largeIcon: fields.largeIcon != nil, url: fields.url != nil)
        try reader.finish()
        return fields
    }

    /// `AARRGGBB` → `#RRGGBB`, the digits kept as written.
    static func readAccentColor(_ reader: inout FieldReader) -> String? {
        guard let text = NotificationSendParser.nonBlank(reader.string("android_accent_color")) else { return nil }
        let digits = Array(text.utf8)
        guard digits.count == 8, digits.allSatisfy(isHexDigit) else {
            reader.problem(Messages.accentColor)
            return nil
        }
        return "#" + String(decoding: digits[2...], as: UTF8.self)
    }

    static func readBigPicture(_ reader: inout FieldReader) -> String? {
        guard let text = NotificationSendParser.nonBlank(reader.string("big_picture")) else { return nil }
        guard NotificationSendParser.isURL(text) else {
            reader.problem(Messages.bigPicture)
            return nil
        }
        return text
    }

    /// An object; its values may be anything (FCM gets them as strings). Keys FCM refuses, and
    /// keys OpenPush writes itself, are refused rather than silently overwritten.
    static func readData(_ reader: inout FieldReader, largeIcon: Bool, url: Bool) -> JSONObject? {
        guard let value = reader.value("data"), value != .null else { return nil }
        guard case .object(let object) = value else {
            reader.problem("data must be an object, got \(value.typeName)")
            return nil
        }
        var valid = true
        for key in object.keys {
            let message: String? =
                if fcmReservedDataKeys.contains(key) || fcmReservedDataPrefixes.contains(where: key.hasPrefix) {
                    Messages.reservedDataKey(key)
                } else if key == notificationIDKey || key == subscriptionIDKey {
                    Messages.openPushDataKey(key)
                } else if key == largeIconKey && largeIcon {
                    Messages.dataKeyAndField(key, "large_icon")
                } else if key == urlKey && url {
                    Messages.dataKeyAndField(key, "url or app_url")
                } else {
                    nil
                }
            if let message {
                reader.problem(message)
                valid = false
            }
        }
        return valid ? object : nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
