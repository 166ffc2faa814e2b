/// A broadcast Live Activity update on an iOS 18 channel: one APNs request that reaches every
/// device subscribed to the channel. The body is the update route's (`event` `update` or
/// `end`, `event_updates`, `name`, `headings`, `contents`, `stale_date`, `dismissal_date`,
/// `priority`, `sound`, `ios_relevance_score`); the payload follows the per-device Live
/// Activity rules (`LiveActivityPayload`). There is no recipient, so nothing is rendered:
/// a Liquid tag in `headings` or `contents` is refused.
package enum ChannelBroadcast {
    /// The `activity_id` of the payload's id block is the channel's `chn_…` id.
    package static func parse(_ body: JSONObject, channelID: String) -> Result<LiveActivitySend, InvalidInput> {
        let parsed = LiveActivitySendParser.parseUpdateOrEnd(body, activityID: channelID)
        var problems: [String] = []
        if case .failure(let error) = parsed { problems = error.messages }
        for field in ["headings", "contents"] {
            guard case .object(let map)? = body[field] else { continue }
            let texts = map.compactMap { $0.value.stringValue }
            if texts.contains(where: { $0.contains("{{") || $0.contains("{%") }) {
                problems.append(liquidRefused(field))
            }
        }
        guard problems.isEmpty, case .success(let send) = parsed else {
            return .failure(InvalidInput(problems))
        }
        return .success(send)
    }

    package static func liquidRefused(_ field: String) -> String {
        "\(field): Liquid is not rendered on a channel broadcast (it has no recipient); send plain text"
    }

    /// What one broadcast is built from. Dates are unix seconds.
    package struct Input: Sendable {
        package var send: LiveActivitySend
        package var messageID: String
        /// APNs' base64 channel id (`apns-channel-id`).
        package var apnsChannelID: String
        package var bundleID: String
        /// The app's `live_activity_auto_end_minutes`, for an end without `dismissal_date`.
        package var autoEndMinutes: Int?
        package var onesignalAlias: Bool
        /// `apns-request-id`, fixed per message.
        package var requestID: String
        /// `aps.timestamp`, strictly increasing per channel (chosen at enqueue).
        package var timestamp: Int
        /// The push time.
        package var now: Double

        package init(send: LiveActivitySend, messageID: String, apnsChannelID: String, bundleID: String,
                    autoEndMinutes: Int? = nil, onesignalAlias: Bool = false, requestID: String, timestamp: Int, now: Double) {
            self.send = send
            self.messageID = messageID
            self.apnsChannelID = apnsChannelID
            self.bundleID = bundleID
            self.autoEndMinutes = autoEndMinutes
            self.onesignalAlias = onesignalAlias
            self.requestID = requestID
            self.timestamp = timestamp
            self.now = now
        }
    }

    /// The broadcast request: the per-device payload rules (priority default by event, a day's
    /// expiration, stale and dismissal dates, relevance, alert), the English texts as
    /// written, and Apple's broadcast size limit.
    package static func build(_ input: Input) -> Result<APNSBroadcastRequest, PayloadProblem> {
        let send = input.send
        let pushInput = LiveActivityPushInput(
            event: send.event, messageID: input.messageID, activityID: send.activityID, activityType: "",
            contentState: send.contentState, title: send.headings?["en"], body: send.contents?["en"], sound: send.sound,
            relevanceScore: send.relevanceScore, explicitPriority: send.priority, requestedStaleDate: send.staleDate,
            registeredStaleDate: nil, requestedDismissalDate: send.dismissalDate, autoEndMinutes: input.autoEndMinutes,
            bundleID: input.bundleID, apnsID: input.requestID, onesignalAlias: input.onesignalAlias, now: input.now,
            timestamp: input.timestamp)
        let request = APNSBroadcastRequest(
            bundleID: input.bundleID, channelID: input.apnsChannelID,
            priority: send.priority ?? LiveActivityPayload.defaultPriority(send.event),
            expiration: LiveActivityPayload.wholeSeconds(input.now) + LiveActivityPayload.expirationSeconds,
            requestID: input.requestID, payload: .object(["aps": .object(LiveActivityPayload.aps(pushInput))]))
        guard request.payloadBytes.count <= APNSBroadcastRequest.maxPayloadBytes else {
            return .failure(.tooLarge(bytes: request.payloadBytes.count))
        }
        return .success(request)
    }
}
