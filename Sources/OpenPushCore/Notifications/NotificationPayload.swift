/// Builds the APNs request for one notification push (alert, background, widget reload, or a
/// push to one of the device's extra tokens: `NotificationPayload+PushTypes`). Pure. The rules are issue 7's and the app-side contract's ("Push types", "Task notifications").
package enum NotificationPayload {
    /// OneSignal's default time to live: three days.
    package static let defaultTTL = 3 * 24 * 3600

    package static func build(_ input: NotificationPushInput) -> Result<APNSRequest, PayloadProblem> {
        let send = input.send
        let pushType: APNSPushType = switch send.kind {
        case .alert: .alert
        case .background: .background
        case .widgets: .widgets
        case .voip: .voip
        case .location: .location
        case .pushToTalk: .pushToTalk
        case .complication: .complication
        case .fileProvider: .fileProvider
        }
        let topic = send.kind.extraKind.map { extraTopic($0, input) }
            ?? pushType.topic(bundleID: input.bundleID, watchBundleID: input.watchBundleID, platform: input.platform)
        let headers = APNSHeaders(
            pushType: pushType,
            topic: topic,
            priority: priority(send),
            expiration: input.expiration,
            apnsID: input.apnsID,
            collapseID: send.kind == .widgets ? nil : send.collapseID)
        let request = APNSRequest(headers: headers, payload: .object(payload(input)))
        guard request.payloadBytes.count <= maximumPayloadBytes(send.kind) else {
            return .failure(.tooLarge(bytes: request.payloadBytes.count))
        }
        return .success(request)
    }

    /// Background pushes must go at 5 (APNs refuses 10); a widget reload is never urgent; an
    /// alert goes at 10 unless the request asks for 5. The extra kinds go at Apple's priority
    /// for each (a complication at 10 or 5 as asked, a file provider push at 5, the rest at 10).
    package static func priority(_ send: NotificationSend) -> Int {
        switch send.kind {
        case .background, .widgets, .fileProvider: 5
        case .alert, .complication: send.priority ?? 10
        case .voip, .location, .pushToTalk: 10
        }
    }

    /// `apns-expiration` for a push whose message became due at `sendTime`. A VoIP push
    /// without a `ttl`, and every push-to-talk push, is tried once (0): a call rings now or never.
    package static func expiration(sendTime: Double, ttl: Int?, kind: NotificationKind = .alert) -> Int {
        if ttl == 0 || kind == .pushToTalk || (ttl == nil && kind == .voip) { return 0 }
        return Int(sendTime.rounded(.down)) + (ttl ?? defaultTTL)
    }

    /// `data`'s keys beside `aps` (never inside it); a widget reload carries nothing but its flag.
    static func payload(_ input: NotificationPushInput) -> JSONObject {
        switch input.send.kind {
        case .widgets:
            return ["aps": ["content-changed": true]]
        case .background:
            var payload: JSONObject = ["aps": ["content-available": 1]]
            for (key, value) in input.send.data ?? [:] { payload[key] = value }
            return payload
        case .alert:
            var payload: JSONObject = ["aps": .object(alertAPS(input))]
            for (key, value) in input.send.data ?? [:] { payload[key] = value }
            if input.privacy.sendsOneSignalData, let osData = oneSignalData(input) { payload["os_data"] = .object(osData) }
            return payload
        case .voip, .location, .pushToTalk, .complication, .fileProvider:
            return extraPayload(input.send, title: input.title, subtitle: input.subtitle, body: input.body)
        }
    }

    /// OneSignal's iOS SDK reads its features from `os_data` beside `aps` (its current format,
    /// in which additional data is every other top-level key — where `data` goes already):
    /// `i` the notification id (its extension names the buttons' category
    /// `__onesignal__dynamic__<i>`), `u` the URL a tap opens, `att` media id → URL for the
    /// extension to download, `buttons` as `[{"i": id, "n": text}]`. Sent only when the
    /// notification has one of these.
    static func oneSignalData(_ input: NotificationPushInput) -> JSONObject? {
        let send = input.send
        guard send.hasOneSignalData else { return nil }
        var osData: JSONObject = ["i": .string(input.messageID)]
        if let url = send.launchURL { osData["u"] = .string(url) }
        if let attachments = send.attachments {
            osData["att"] = .object(JSONObject(attachments.map { ($0.id, JSONValue.string($0.url)) }))
        }
        if let buttons = send.buttons {
            osData["buttons"] = .array(buttons.map { ["i": .string($0.id), "n": .string($0.text)] })
        }
        return osData
    }

    static func alertAPS(_ input: NotificationPushInput) -> JSONObject {
        let send = input.send
        var aps: JSONObject = [:]
        // `apns_alert` first (its keys never name the texts), then the rendered texts, then the
        // dedicated summary fields, which win over `apns_alert`'s.
        var alert = input.privacy.keepsWording ? send.apnsAlert ?? [:] : [:]
        if let title = visible(input.title) { alert["title"] = .string(title) }
        if let subtitle = visible(input.subtitle) { alert["subtitle"] = .string(subtitle) }
        if let body = visible(input.body) { alert["body"] = .string(body) }
        if input.privacy.keepsWording, let summary = send.summaryArg { alert["summary-arg"] = .string(summary) }
        if let count = send.summaryArgCount { alert["summary-arg-count"] = .int(Int64(count)) }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if let badge = input.badge { aps["badge"] = .int(Int64(badge)) }
        if let sound = send.sound { aps["sound"] = .string(sound) }
        if let threadID = send.threadID { aps["thread-id"] = .string(threadID) }
        if let category = send.category { aps["category"] = .string(category) }
        if send.contentAvailable { aps["content-available"] = 1 }
        if send.needsServiceExtension || input.privacy == .idsOnly { aps["mutable-content"] = 1 }
        if let level = send.interruptionLevel { aps["interruption-level"] = .string(level.apnsValue) }
        if let score = send.relevanceScore { aps["relevance-score"] = .double(score) }
        if let target = send.targetContentIdentifier { aps["target-content-id"] = .string(target) }
        return aps
    }

    static func visible(_ text: String?) -> String? {
        guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
        return text
    }
}
