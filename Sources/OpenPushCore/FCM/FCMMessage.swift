/// One FCM HTTP v1 send request body, `{"message": {"token": …, …}}`, for one Android device.
/// Pure: the texts come in already rendered in the device's language and already decided by
/// the delivery policy (`AlertPrivacy`); the fields come from `AndroidNotificationFields`.
/// No title and no body (after blank texts are dropped) makes a data-only message: no
/// `notification` and no `android.notification`, since either would make FCM show one.
package struct FCMMessage: Sendable, Hashable {
    package var token: String
    package var title: String?
    package var body: String?
    package var fields: AndroidNotificationFields
    package var notificationID: String
    package var subscriptionID: String
    package var content: FCMMessageContent

    package init(token: String, title: String?, body: String?, fields: AndroidNotificationFields, notificationID: String,
                subscriptionID: String, content: FCMMessageContent = .full) {
        self.token = token
        self.title = title
        self.body = body
        self.fields = fields
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.content = content
    }

    /// The title FCM shows: none for a hidden-details or ids-only push.
    package var shownTitle: String? { content == .full ? Self.visible(title) : nil }
    /// The body FCM shows: none for an ids-only push.
    package var shownBody: String? { content == .idsOnly ? nil : Self.visible(body) }

    /// Whether FCM gets no `notification`: the app handles the push itself.
    package var isDataOnly: Bool { shownTitle == nil && shownBody == nil }

    package var priority: FCMPriority {
        FCMPriority(requested: fields.priority, visible: !isDataOnly || content == .idsOnly)
    }

    /// FCM's `data`: the request's `data` with every value as a string (FCM's map is string to
    /// string; a string stays as it is, anything else becomes its JSON text), then `large_icon`
    /// and `url`, then the OpenPush ids, which every push carries so the app can report a tap.
    package var data: JSONObject {
        var data = JSONObject()
        for (key, value) in fields.data ?? JSONObject() {
            data[key] = .string(value.stringValue ?? value.serialized)
        }
        if content == .full, let largeIcon = fields.largeIcon {
            data[AndroidNotificationFields.largeIconKey] = .string(largeIcon)
        }
        if content != .idsOnly, let url = fields.url { data[AndroidNotificationFields.urlKey] = .string(url) }
        data[AndroidNotificationFields.notificationIDKey] = .string(notificationID)
        data[AndroidNotificationFields.subscriptionIDKey] = .string(subscriptionID)
        return data
    }

    /// The request body as a JSON value.
    package var json: JSONValue {
        var message: JSONObject = ["token": .string(token)]
        if !isDataOnly {
            var notification = JSONObject()
            notification.put("title", shownTitle)
            notification.put("body", shownBody)
            if content == .full { notification.put("image", fields.bigPicture) }
            message["notification"] = .object(notification)
        }
        message["data"] = .object(data)
        var android = JSONObject()
        android.put("collapse_key", fields.collapseID)
        android["priority"] = .string(priority.rawValue)
        if let ttl = fields.ttl { android["ttl"] = .string("\(ttl)s") }
        if !isDataOnly {
            var notification = JSONObject()
            notification.put("channel_id", fields.channelID)
            notification.put("icon", fields.smallIcon)
            notification.put("color", fields.accentColor)
            notification.put("sound", fields.sound)
            notification.put("tag", fields.group)
            if !notification.isEmpty { android["notification"] = .object(notification) }
        }
        message["android"] = .object(android)
        return ["message": .object(message)]
    }

    /// The request body as UTF-8 JSON text, written by OpenPushCore's JSON writer.
    package var serializedBytes: [UInt8] { json.serializedBytes }

    private static func visible(_ text: String?) -> String? {
        guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
        return text
    }
}
