/// One recipient of a claimed job, as the planner and outcome decisions see it.
package struct ClaimedDelivery: Sendable, Equatable {
    /// Its index in the job: unique within a batch.
    package var id: Int64
    package var apnsID: String
    package var messageID: String
    package var appID: String
    package var subscriptionID: String
    package var liveActivityID: String?
    package var tokenKind: TokenKind
    package var token: String
    /// The absolute badge an alert shows (notifications with a badge only).
    package var badge: Int?
    /// Including this attempt.
    package var attempts: Int
    /// When it was first queued (unix seconds): retries keep it.
    package var createdAt: Double

    package init(id: Int64, apnsID: String, messageID: String, appID: String, subscriptionID: String, liveActivityID: String?,
                tokenKind: TokenKind, token: String, badge: Int?, attempts: Int, createdAt: Double) {
        self.id = id
        self.apnsID = apnsID
        self.messageID = messageID
        self.appID = appID
        self.subscriptionID = subscriptionID
        self.liveActivityID = liveActivityID
        self.tokenKind = tokenKind
        self.token = token
        self.badge = badge
        self.attempts = attempts
        self.createdAt = createdAt
    }
}

/// What a device's record for a message says in the end.
package enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    case accepted, error
    /// Never sent: the message was cancelled first.
    case cancelled
    /// Never sent: a newer Live Activity push was accepted first.
    case superseded
    /// Never sent: a delivery policy (`SuppressionReason`) decided against it.
    case suppressed
}
