/// The stored form of a `NotificationSend` (version 1).
///
/// `kind` (`alert`, `background`, `widgets`, or an extra token kind: `voip`, `location`,
/// `pushtotalk`, `complication`, `fileprovider`), `targeting` (see `StoredSend+Targeting`) and the
/// optional fields `name`, `headings`, `subtitle`, `contents`, `data`, `badge`
/// (`{"set_to": n}` or `{"increase": n}`), `sound`, `category`, `thread_id`, `collapse_id`,
/// `interruption_level` (the request's spelling), `relevance_score`, `priority`, `ttl`,
/// `send_after`, `target_content_identifier`, `launch_url`, `attachments` (`[{"id", "url"}]`, in
/// request order), `buttons` (`[{"id", "text", "icon"?}]`), `apns_alert`, `summary_arg`,
/// `summary_arg_count`, `idempotency_key`, `custom_data`, the schedule (`local_time_of_day` in
/// seconds after midnight or the flag `last_active`, and `throttle_rate_per_minute`), and the flags `content_available`, `mutable_content`,
/// `apple_excluded`; `quiet_hours` (`defer` or `ignore`; absent is `silence`); `privacy_text` and
/// `privacy` (`StoredSend+Privacy`). The alert gates (`StoredSend+AlertGates`): `dedupe_key`,
/// `event_at`, `stale_after_seconds`. The Android-only fields: `android` (`StoredSend+Android`); the web fields: `web` (`StoredSend+Web`).
extension StoredSend {
    package static func encode(_ send: NotificationSend) -> JSONValue {
        var object = envelope(.notification)
        object["kind"] = .string(send.kind.rawValue)
        object["targeting"] = encode(send.targeting)
        object.put("name", send.name)
        object.put("headings", send.headings)
        object.put("subtitle", send.subtitle)
        object.put("contents", send.contents)
        object.put("data", send.data.map(JSONValue.object))
        object.put("badge", encode(send.badge))
        object.put("sound", send.sound)
        object.put("category", send.category)
        object.put("thread_id", send.threadID)
        object.put("collapse_id", send.collapseID)
        object.put("content_available", flag: send.contentAvailable)
        object.put("mutable_content", flag: send.mutableContent)
        object.put("interruption_level", send.interruptionLevel?.rawValue)
        object.put("relevance_score", send.relevanceScore)
        object.put("priority", send.priority)
        object.put("ttl", send.ttl)
        object.put("send_after", send.sendAfter)
        object.put("target_content_identifier", send.targetContentIdentifier)
        object.put("apple_excluded", flag: send.appleExcluded)
        object.put("android_excluded", flag: send.androidExcluded)
        object.put("launch_url", send.launchURL)
        object.put("attachments", send.attachments.map { .array($0.map { ["id": .string($0.id), "url": .string($0.url)] }) })
        object.put("buttons", send.buttons.map { .array($0.map(encode)) })
        object.put("apns_alert", send.apnsAlert.map(JSONValue.object))
        object.put("summary_arg", send.summaryArg)
        object.put("summary_arg_count", send.summaryArgCount)
        object.put("idempotency_key", send.idempotencyKey)
        object.put("custom_data", send.customData.map(JSONValue.object))
        encode(send.schedule, into: &object)
        encode(send.gates, into: &object)
        encodePrivacy(send, into: &object)
        // Absent means the default, so sends stored before the field decode as they were.
        object.put("quiet_hours", send.quietHours == .default ? nil : send.quietHours.rawValue)
        encodeAndroid(send.android, into: &object)
        encodeWeb(send.web, into: &object)
        return .object(object)
    }

    package static func decodeNotification(_ value: JSONValue) throws(StoredSendError) -> NotificationSend {
        var fields = try open(value, as: .notification)
        let kindText = try fields.requiredString("kind")
        guard let kind = NotificationKind(rawValue: kindText) else { throw StoredSendError("stored notification kind '\(kindText)' is unknown") }
        guard let targeting = try fields.object("targeting") else { throw StoredSendError("stored send field 'targeting' is missing") }
        var send = NotificationSend(kind: kind, targeting: try decodeTargeting(targeting))
        send.name = try fields.string("name")
        send.headings = try fields.stringMap("headings")
        send.subtitle = try fields.stringMap("subtitle")
        send.contents = try fields.stringMap("contents")
        send.data = try fields.object("data")
        send.badge = try decodeBadge(try fields.object("badge"))
        send.sound = try fields.string("sound")
        send.category = try fields.string("category")
        send.threadID = try fields.string("thread_id")
        send.collapseID = try fields.string("collapse_id")
        send.contentAvailable = try fields.bool("content_available")
        send.mutableContent = try fields.bool("mutable_content")
        if let level = try fields.string("interruption_level") {
            guard let known = InterruptionLevel(rawValue: level) else { throw StoredSendError("stored interruption level '\(level)' is unknown") }
            send.interruptionLevel = known
        }
        send.relevanceScore = try fields.double("relevance_score")
        send.priority = try fields.int("priority").map(Int.init)
        send.ttl = try fields.int("ttl").map(Int.init)
        send.sendAfter = try fields.double("send_after")
        send.targetContentIdentifier = try fields.string("target_content_identifier")
        send.appleExcluded = try fields.bool("apple_excluded")
        send.androidExcluded = try fields.bool("android_excluded")
        send.launchURL = try fields.string("launch_url")
        send.attachments = try fields.array("attachments").map { (items) throws(StoredSendError) in
            try items.enumerated().map { (index, item) throws(StoredSendError) in
                var entry = try StoredFields(entry: item, path: "attachments[\(index)].")
                let attachment = NotificationAttachment(id: try entry.requiredString("id"), url: try entry.requiredString("url"))
                try entry.finish()
                return attachment
            }
        }
        send.buttons = try fields.array("buttons").map { (items) throws(StoredSendError) in
            try items.enumerated().map { (index, item) throws(StoredSendError) in
                var entry = try StoredFields(entry: item, path: "buttons[\(index)].")
                let button = NotificationButton(id: try entry.requiredString("id"), text: try entry.requiredString("text"),
                                                icon: try entry.string("icon"))
                try entry.finish()
                return button
            }
        }
        send.apnsAlert = try fields.object("apns_alert")
        send.summaryArg = try fields.string("summary_arg")
        send.summaryArgCount = try fields.int("summary_arg_count").map(Int.init)
        send.idempotencyKey = try fields.string("idempotency_key")
        send.customData = try fields.object("custom_data")
        send.schedule = try decodeSchedule(&fields)
        send.gates = try decodeGates(&fields)
        try decodePrivacy(&fields, into: &send)
        if let mode = try fields.string("quiet_hours") {
            guard let known = QuietHoursMode(rawValue: mode) else { throw StoredSendError("stored quiet_hours mode '\(mode)' is unknown") }
            send.quietHours = known
        }
        send.android = try decodeAndroid(&fields)
        send.web = try decodeWeb(&fields)
        try fields.finish()
        return send
    }

    static func encode(_ button: NotificationButton) -> JSONValue {
        var object: JSONObject = ["id": .string(button.id), "text": .string(button.text)]
        object.put("icon", button.icon)
        return .object(object)
    }

    static func encode(_ badge: NotificationBadge) -> JSONValue? {
        switch badge {
        case .none: nil
        case .setTo(let count): ["set_to": .int(Int64(count))]
        case .increase(let step): ["increase": .int(Int64(step))]
        }
    }

    static func decodeBadge(_ object: JSONObject?) throws(StoredSendError) -> NotificationBadge {
        guard let object else { return .none }
        guard object.count == 1, let name = object.keys.first, case .int(let number)? = object[name] else {
            throw StoredSendError("stored send field 'badge' must be one integer rule")
        }
        switch name {
        case "set_to": return .setTo(Int(number))
        case "increase": return .increase(Int(number))
        default: throw StoredSendError("stored badge rule '\(name)' is unknown")
        }
    }
}

extension StoredSend {
    static func encode(_ schedule: NotificationSchedule, into object: inout JSONObject) {
        switch schedule.delay {
        case .localTime(let seconds): object.put("local_time_of_day", seconds)
        case .lastActive: object.put("last_active", flag: true)
        case nil: break
        }
        object.put("throttle_rate_per_minute", schedule.throttleRatePerMinute)
    }

    static func decodeSchedule(_ fields: inout StoredFields) throws(StoredSendError) -> NotificationSchedule {
        let localTime = try fields.int("local_time_of_day").map(Int.init)
        let lastActive = try fields.bool("last_active")
        if localTime != nil, lastActive { throw StoredSendError("stored schedule has both local_time_of_day and last_active") }
        let delay: NotificationSchedule.Delay? = localTime.map { .localTime(secondsAfterMidnight: $0) } ?? (lastActive ? .lastActive : nil)
        return NotificationSchedule(delay: delay, throttleRatePerMinute: try fields.int("throttle_rate_per_minute").map(Int.init))
    }
}
