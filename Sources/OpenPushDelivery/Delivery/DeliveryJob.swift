package import OpenPushCore

/// One leased unit of work: up to a few thousand recipients of one message, all with the same
/// token kind and on the same attempt.
package struct DeliveryJob: Sendable, Equatable {
    package struct Recipient: Sendable, Equatable {
        package var subscriptionID: String
        /// The token read with the audience; nil for device and widget recipients, whose push
        /// goes to the token their subscription holds when the job runs
        /// (`TokenKind.isReadWhenSent`).
        package var token: String?
        package var liveActivityID: String?
        /// The absolute badge an alert shows (notifications with a badge only).
        package var badge: Int?

        package init(subscriptionID: String, token: String?, liveActivityID: String? = nil, badge: Int? = nil) {
            self.subscriptionID = subscriptionID
            self.token = token
            self.liveActivityID = liveActivityID
            self.badge = badge
        }
    }

    package var id: Int64
    package var messageID: String
    package var appID: String
    package var lane: DeliveryLane
    package var tokenKind: TokenKind
    /// The attempt its recipients are on: 1 for a fresh job, more for a retry job.
    package var attempt: Int
    package var recipients: [Recipient]
    /// When the first job of this message's recipients was queued (retry jobs keep it).
    package var createdAt: Double

    /// Each recipient as the planner sees it; `id` is its index in the job. A device or widget
    /// recipient's token is empty until `DeliveryContext.withCurrentTokens` reads it.
    var deliveries: [ClaimedDelivery] {
        recipients.enumerated().map { index, recipient in
            ClaimedDelivery(id: Int64(index), apnsID: APNSIdentifier.derive(messageID: messageID, subscriptionID: recipient.subscriptionID,
                                                                             tokenKind: tokenKind),
                            messageID: messageID, appID: appID, subscriptionID: recipient.subscriptionID,
                            liveActivityID: recipient.liveActivityID, tokenKind: tokenKind, token: recipient.token ?? "",
                            badge: recipient.badge, attempts: attempt, createdAt: createdAt)
        }
    }
}
