public import OpenPushCore

/// One leased unit of work: up to a few thousand recipients of one message, all with the same
/// token kind and on the same attempt.
public struct DeliveryJob: Sendable, Equatable {
    public struct Recipient: Sendable, Equatable {
        public var subscriptionID: String
        /// The token read with the audience; nil for device and widget recipients, whose push
        /// goes to the token their subscription holds when the job runs
        /// (`TokenKind.isReadWhenSent`).
        public var token: String?
        public var liveActivityID: String?
        /// The absolute badge an alert shows (notifications with a badge only).
        public var badge: Int?

        public init(subscriptionID: String, token: String?, liveActivityID: String? = nil, badge: Int? = nil) {
            self.subscriptionID = subscriptionID
            self.token = token
            self.liveActivityID = liveActivityID
            self.badge = badge
        }
    }

    public var id: Int64
    public var messageID: String
    public var appID: String
    public var lane: DeliveryLane
    public var tokenKind: TokenKind
    /// The attempt its recipients are on: 1 for a fresh job, more for a retry job.
    public var attempt: Int
    public var recipients: [Recipient]
    /// When the first job of this message's recipients was queued (retry jobs keep it).
    public var createdAt: Double

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
