/// Builds the APNs request for one Live Activity push. Pure: the clock and the `aps.timestamp`
/// come in with the input. The rules are the reference's "APNs behaviour" and "Lifecycle",
/// with `shared/DESIGN.md`'s choices where the reference contradicts itself.
package enum LiveActivityPayload {
    /// `apns-expiration` is this far after the push.
    package static let expirationSeconds = 24 * 3600
    /// A start with no `stale_date` goes stale when the activity's active window ends.
    package static let defaultStartStaleSeconds = LiveActivityWindow.activeSeconds

    package static func build(_ input: LiveActivityPushInput) -> Result<APNSRequest, PayloadProblem> {
        let headers = APNSHeaders(
            pushType: .liveActivity,
            topic: APNSPushType.liveActivity.topic(
                bundleID: input.bundleID, watchBundleID: input.watchBundleID, platform: input.platform),
            priority: input.explicitPriority ?? defaultPriority(input.event),
            expiration: wholeSeconds(input.now) + expirationSeconds,
            apnsID: input.apnsID)
        let request = APNSRequest(headers: headers, payload: .object(["aps": .object(aps(input))]))
        guard request.payloadBytes.count <= APNSRequest.maxPayloadBytes else {
            return .failure(.tooLarge(bytes: request.payloadBytes.count))
        }
        return .success(request)
    }

    /// Start and end alert the person; an update goes at 5 so that frequent ticks do not
    /// drain the battery (DESIGN.md: "APNs behaviour" wins over the body table's 10).
    package static func defaultPriority(_ event: LiveActivityEvent) -> Int {
        event == .update ? 5 : 10
    }

    /// ActivityKit discards a push whose timestamp is not above the last one it applied, so
    /// each push of an activity takes the clock's second or one past the previous, whichever
    /// is later.
    package static func nextTimestamp(now: Double, previous: Int?) -> Int {
        let clock = wholeSeconds(now)
        guard let previous else { return clock }
        return max(clock, previous + 1)
    }

    static func aps(_ input: LiveActivityPushInput) -> JSONObject {
        var aps: JSONObject = [
            "timestamp": .int(Int64(input.timestamp)),
            "event": .string(input.event.rawValue),
            "content-state": .object(contentState(input)),
        ]
        if let stale = staleDate(input).flatMap(date) { aps["stale-date"] = stale }
        if let dismissal = dismissalDate(input).flatMap(date) { aps["dismissal-date"] = dismissal }
        if let score = input.relevanceScore, !score.isNaN { aps["relevance-score"] = .double(min(max(score, 0), 1)) }
        if input.event == .start {
            aps["input-push-token"] = 1
            aps["attributes-type"] = .string(input.activityType)
            aps["attributes"] = .object(attributes(input))
        }
        if let alert = alert(input) { aps["alert"] = .object(alert) }
        return aps
    }

    /// The caller's content state plus the id blocks on a start and an update. The blocks are
    /// ours: a caller key `openpush` (or `onesignal`, with the alias on) is replaced.
    static func contentState(_ input: LiveActivityPushInput) -> JSONObject {
        var state = input.contentState
        guard input.event != .end else { return state }
        state["openpush"] = idBlock(input)
        if input.onesignalAlias { state["onesignal"] = ["notificationId": .string(input.messageID)] }
        return state
    }

    static func attributes(_ input: LiveActivityPushInput) -> JSONObject {
        var attributes = input.attributes ?? [:]
        attributes["openpush"] = idBlock(input)
        if input.onesignalAlias { attributes["onesignal"] = ["activityId": .string(input.activityID)] }
        return attributes
    }

    static func idBlock(_ input: LiveActivityPushInput) -> JSONValue {
        ["notification_id": .string(input.messageID), "activity_id": .string(input.activityID)]
    }

    /// Sent when requested; otherwise the registered one on an update, the end of the active
    /// window on a start, and none on an end.
    static func staleDate(_ input: LiveActivityPushInput) -> Double? {
        if let requested = input.requestedStaleDate { return requested }
        switch input.event {
        case .start: return input.now + defaultStartStaleSeconds
        case .update: return input.registeredStaleDate
        case .end: return nil
        }
    }

    /// An end only: requested, else the app's auto-end minutes after the push, else none
    /// (iOS then keeps the ended activity up to four hours).
    static func dismissalDate(_ input: LiveActivityPushInput) -> Double? {
        guard input.event == .end else { return nil }
        if let requested = input.requestedDismissalDate { return requested }
        return input.autoEndMinutes.map { input.now + Double($0) * 60 }
    }

    /// `{title, body}` when either has visible text; both keys are always there (ActivityKit's
    /// `AlertConfiguration` has both), a blank one as `""`. A Live Activity alert carries its
    /// sound inside `alert`, so a sound with no text still makes an alert of its own.
    static func alert(_ input: LiveActivityPushInput) -> JSONObject? {
        let title = visible(input.title)
        let body = visible(input.body)
        let sound = visible(input.sound)
        var alert: JSONObject = [:]
        if title != nil || body != nil {
            alert["title"] = .string(title ?? "")
            alert["body"] = .string(body ?? "")
        }
        if let sound { alert["sound"] = .string(sound) }
        return alert.isEmpty ? nil : alert
    }

    static func visible(_ text: String?) -> String? {
        guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
        return text
    }

    /// APNs dates are whole unix seconds; a date that is not a finite number is left out.
    static func date(_ time: Double) -> JSONValue? {
        time.isFinite ? .int(Int64(wholeSeconds(time))) : nil
    }

    static func wholeSeconds(_ time: Double) -> Int {
        Int(time.rounded(.down))
    }
}
