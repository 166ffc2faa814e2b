/// What one Live Activity push to one device is built from: the message (already validated,
/// title and body already rendered for this recipient), the recipient's row, the app's
/// settings and the clock. Dates are unix seconds.
package struct LiveActivityPushInput: Sendable {
    package var event: LiveActivityEvent
    /// The message id (`msg_…`), stamped into the payload as `notification_id`.
    package var messageID: String
    package var activityID: String
    /// The ActivityKit attributes type (start: the path's type, verbatim).
    package var activityType: String
    /// ActivityKit `attributes`: a start only.
    package var attributes: JSONObject?
    package var contentState: JSONObject
    package var title: String?
    package var body: String?
    package var sound: String?
    package var relevanceScore: Double?
    /// The body's `priority`; `nil` means the event's default.
    package var explicitPriority: Int?
    /// The body's `stale_date`.
    package var requestedStaleDate: Double?
    /// The activity row's `stale_at` (update and end).
    package var registeredStaleDate: Double?
    /// The body's `dismissal_date` (end only).
    package var requestedDismissalDate: Double?
    /// The app's `live_activity_auto_end_minutes` (1–120), if set.
    package var autoEndMinutes: Int?
    package var bundleID: String
    package var watchBundleID: String?
    /// The subscription's platform: `ios`, `watchos` or `macos`.
    package var platform: String
    /// The delivery row's fixed UUID.
    package var apnsID: String
    /// The app's `onesignal_alias` setting.
    package var onesignalAlias: Bool
    /// The push time.
    package var now: Double
    /// `aps.timestamp`, chosen by the caller (see `LiveActivityPayload.nextTimestamp`).
    package var timestamp: Int

    package init(
        event: LiveActivityEvent, messageID: String, activityID: String, activityType: String,
        attributes: JSONObject? = nil, contentState: JSONObject,
        title: String? = nil, body: String? = nil, sound: String? = nil, relevanceScore: Double? = nil,
        explicitPriority: Int? = nil, requestedStaleDate: Double? = nil, registeredStaleDate: Double? = nil,
        requestedDismissalDate: Double? = nil, autoEndMinutes: Int? = nil,
        bundleID: String, watchBundleID: String? = nil, platform: String = "ios",
        apnsID: String, onesignalAlias: Bool = false, now: Double, timestamp: Int
    ) {
        self.event = event
        self.messageID = messageID
        self.activityID = activityID
        self.activityType = activityType
        self.attributes = attributes
        self.contentState = contentState
        self.title = title
        self.body = body
        self.sound = sound
        self.relevanceScore = relevanceScore
        self.explicitPriority = explicitPriority
        self.requestedStaleDate = requestedStaleDate
        self.registeredStaleDate = registeredStaleDate
        self.requestedDismissalDate = requestedDismissalDate
        self.autoEndMinutes = autoEndMinutes
        self.bundleID = bundleID
        self.watchBundleID = watchBundleID
        self.platform = platform
        self.apnsID = apnsID
        self.onesignalAlias = onesignalAlias
        self.now = now
        self.timestamp = timestamp
    }
}
