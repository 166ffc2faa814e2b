/// Validation of a `POST /notifications` body. Every problem is reported in one `InvalidInput`: field
/// problems in the order below, then conflicts between fields, then unknown fields in body order.
/// `app_id` is read here (so it is a known field) but checked by the route.
package enum NotificationSendParser {
    package static let maximumCollapseIDBytes = HeaderText.maximumCollapseIDBytes
    /// APNs keeps a push at most this long anyway (28 days).
    package static let maximumTTL: Int64 = 28 * 24 * 3600

    package enum Messages {
        package static let nothingToShow =
            "contents is required unless content_available is true, push_type is \"widgets\" or apns_alert has a loc-key"
        package static let silentWithSoundOrBadge =
            "a background notification (content_available without contents) cannot have ios_sound or a badge"
        package static let widgetsOnlyReload =
            #"push_type "widgets" sends a widget reload only: remove "#
        package static let pushType = #"push_type must be "widgets""#
        package static let collapseIDTooLong = "collapse_id must be at most 64 bytes"
        package static let collapseIDNotASCII = "collapse_id must be printable ASCII (space to ~): it is sent as an HTTP/2 header"
        package static let badgeType = "ios_badgeType must be one of: None, SetTo, Increase"
        package static let badgeCountRequired = "ios_badgeCount is required with ios_badgeType SetTo or Increase"
        package static let badgeCountNegative = "ios_badgeCount must be 0 or more with ios_badgeType SetTo"
        package static let dataHoldsAPS = "data cannot contain the key 'aps'"
        package static let interruptionLevel = "ios_interruption_level must be one of: passive, active, time_sensitive, critical"
        package static let targetChannel = #"target_channel must be "push": OpenPush sends push notifications only (Apple, Android and browsers)"#
    }

    /// The body fields a widget reload refuses: it carries no content of its own.
    static let contentFields = ["contents", "headings", "subtitle", "ios_sound", "ios_badgeType", "data",
                                "content_available", "mutable_content", "ios_category", "thread_id",
                                "target_content_identifier", "ios_interruption_level", "ios_relevance_score",
                                "url", "app_url", "ios_attachments", "buttons", "apns_alert", "summary_arg",
                                "summary_arg_count", "apns_push_type_override", "privacy_text", "privacy"]

    package static func parse(_ body: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var reader = FieldReader(body)
        _ = reader.value("app_id")
        let name = reader.string("name", maxLength: 128)
        let contents = LiveActivitySendParser.languageMap("contents", required: false, &reader)
        let headings = LiveActivitySendParser.languageMap("headings", required: false, &reader)
        let subtitle = LiveActivitySendParser.languageMap("subtitle", required: false, &reader)
        let data = readData(&reader)
        let badge = readBadge(&reader)
        let sound = nonBlank(reader.string("ios_sound"))
        let category = nonBlank(reader.string("ios_category"))
        let threadID = nonBlank(reader.string("thread_id"))
        let collapseID = readCollapseID(&reader)
        let contentAvailable = reader.bool("content_available") ?? false
        let mutableContent = reader.bool("mutable_content") ?? false
        let interruptionLevel = readInterruptionLevel(&reader)
        let relevance = LiveActivitySendParser.readRelevance(&reader)
        let priority = LiveActivitySendParser.readPriority(&reader)
        let ttl = reader.integer("ttl", in: 0...maximumTTL).map(Int.init)
        let sendAfter = readSendAfter(&reader)
        let targetContentIdentifier = nonBlank(reader.string("target_content_identifier"))
        let launchURL = readLaunchURL(&reader)
        let attachments = readAttachments(&reader)
        let buttons = readButtons(&reader)
        let apnsAlert = readAPNSAlert(&reader)
        let summaryArg = nonBlank(reader.string("summary_arg"))
        let summaryArgCount = reader.integer("summary_arg_count", in: 1...1_000_000).map(Int.init)
        let pushTypeOverride = readPushTypeOverride(&reader)
        let idempotencyKey = readIdempotencyKey(&reader)
        let widgets = readPushType(&reader)
        let targeting = AudienceTargeting.read(&reader, legacySpellings: true)
        readTargetChannel(&reader)
        let appleExcluded = reader.bool("isIos") == false
        let androidExcluded = reader.bool("isAndroid") == false
        let customData = readTemplateReferences(&reader)
        let schedule = NotificationScheduleParser.read(&reader)
        let gates = readAlertGates(&reader)
        let privacy = readPrivacy(&reader)
        let quietHours = readQuietHoursMode(&reader)
        let android = readAndroid(body, &reader)
        let web = readWeb(body, &reader)
        for field in OneSignalNotificationFields.otherChannels { _ = reader.value(field) }

        let localized = apnsAlert.map { alert in apnsAlertVisibleKeys.contains { alert[$0] != nil } } ?? false
        // An ids-only message is worded by its privacy text alone.
        let visible = contents != nil || headings != nil || subtitle != nil || localized
            || (privacy.privacy == .idsOnly && privacy.text != nil)
        let kind: NotificationKind
        if !widgets, case .extra(let extra)? = pushTypeOverride {
            kind = NotificationKind(extra)
            checkExtra(extra, body: body, data: data, priority: priority, ttl: ttl, headings: headings, subtitle: subtitle,
                       contents: contents, &reader)
        } else if widgets {
            kind = .widgets
            let conflicting = contentFields.filter { body.isPresent($0) }
            if !conflicting.isEmpty { reader.problem(Messages.widgetsOnlyReload + conflicting.joined(separator: ", ")) }
        } else if visible {
            kind = .alert
        } else if contentAvailable {
            kind = .background
            if sound != nil || badge != .none { reader.problem(Messages.silentWithSoundOrBadge) }
            let visibleOnly = visibleOnlyFields.filter { body.isPresent($0) }
            if !visibleOnly.isEmpty { reader.problem(AppleMessages.backgroundShowsNothing + visibleOnly.joined(separator: ", ")) }
        } else {
            kind = .alert
            if !reader.problems.contains(where: { $0.hasPrefix("contents") || $0.hasPrefix("headings") || $0.hasPrefix("subtitle") }) {
                reader.problem(Messages.nothingToShow)
            }
        }
        // A widget reload already refused the override among its content fields.
        if case .matching(let wanted)? = pushTypeOverride, kind != .widgets, wanted != kind {
            reader.problem(AppleMessages.pushTypeMismatch(wanted.rawValue, kind))
        }
        if launchURL != nil || attachments != nil || buttons != nil, data?["os_data"] != nil {
            reader.problem(AppleMessages.dataHoldsOSData)
        }
        reader.rejectUnknownFields()
        guard reader.problems.isEmpty, let targeting else { return .failure(InvalidInput(reader.problems)) }
        var send = NotificationSend(
            kind: kind, name: name, headings: headings, subtitle: subtitle, contents: contents, targeting: targeting,
            data: data, badge: badge, sound: sound, category: category, threadID: threadID, collapseID: collapseID,
            contentAvailable: contentAvailable, mutableContent: mutableContent, interruptionLevel: interruptionLevel,
            relevanceScore: relevance, priority: priority, ttl: ttl, sendAfter: sendAfter,
            targetContentIdentifier: targetContentIdentifier, appleExcluded: appleExcluded, launchURL: launchURL,
            attachments: attachments, buttons: buttons, apnsAlert: apnsAlert, summaryArg: summaryArg,
            summaryArgCount: summaryArgCount, idempotencyKey: idempotencyKey,
            customData: customData)
        send.androidExcluded = androidExcluded
        send.schedule = schedule
        send.gates = gates
        (send.privacyText, send.privacy) = privacy
        send.quietHours = quietHours
        send.android = android
        send.web = web
        return .success(send)
    }

    // MARK: fields

    static func nonBlank(_ text: String?) -> String? {
        guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
        return text
    }

    /// Unix seconds as a number (checked as every timestamp field is), or a date in one of the
    /// forms OneSignal accepts (`SendAfterDate`).
    static func readSendAfter(_ reader: inout FieldReader) -> Double? {
        guard case .string(let text)? = reader.value("send_after") else {
            return LiveActivitySendParser.seconds("send_after", &reader)
        }
        guard let seconds = SendAfterDate.unixSeconds(text) else {
            reader.problem(SendAfterDate.message)
            return nil
        }
        return seconds
    }

    static func readData(_ reader: inout FieldReader) -> JSONObject? {
        guard let value = reader.value("data"), value != .null else { return nil }
        guard case .object(let object) = value else {
            reader.problem("data must be an object, got \(value.typeName)")
            return nil
        }
        guard object["aps"] == nil else {
            reader.problem(Messages.dataHoldsAPS)
            return nil
        }
        return object
    }

    static func readBadge(_ reader: inout FieldReader) -> NotificationBadge {
        let type = reader.string("ios_badgeType")
        let count = reader.integer("ios_badgeCount", in: -100_000...100_000)
        switch type {
        case nil, "None"?:
            return .none
        case "SetTo"?:
            guard let count else {
                if !reader.problems.contains(where: { $0.hasPrefix("ios_badgeCount") }) { reader.problem(Messages.badgeCountRequired) }
                return .none
            }
            guard count >= 0 else {
                reader.problem(Messages.badgeCountNegative)
                return .none
            }
            return .setTo(Int(count))
        case "Increase"?:
            guard let count else {
                if !reader.problems.contains(where: { $0.hasPrefix("ios_badgeCount") }) { reader.problem(Messages.badgeCountRequired) }
                return .none
            }
            return .increase(Int(count))
        default:
            reader.problem(Messages.badgeType)
            return .none
        }
    }

    /// `apns-collapse-id` on the wire: a control character there would reset the connection that
    /// other apps' pushes share (`HeaderText`).
    static func readCollapseID(_ reader: inout FieldReader) -> String? {
        guard let id = nonBlank(reader.string("collapse_id")) else { return nil }
        guard HeaderText.isPrintableASCII(id) else {
            reader.problem(Messages.collapseIDNotASCII)
            return nil
        }
        guard id.utf8.count <= maximumCollapseIDBytes else {
            reader.problem(Messages.collapseIDTooLong)
            return nil
        }
        return id
    }

    static func readInterruptionLevel(_ reader: inout FieldReader) -> InterruptionLevel? {
        guard let text = reader.string("ios_interruption_level") else { return nil }
        guard let level = InterruptionLevel(rawValue: text) else {
            reader.problem(Messages.interruptionLevel)
            return nil
        }
        return level
    }

    /// OneSignal's channel switch: only `push` is something OpenPush can send.
    static func readTargetChannel(_ reader: inout FieldReader) {
        guard let channel = reader.string("target_channel"), channel != "push" else { return }
        reader.problem(Messages.targetChannel)
    }

    /// Only `widgets` is OpenPush's own; alert and background follow from the content.
    static func readPushType(_ reader: inout FieldReader) -> Bool {
        guard let value = reader.value("push_type"), value != .null else { return false }
        guard value == .string("widgets") else {
            reader.problem(Messages.pushType)
            return false
        }
        return true
    }
}
