public import OpenPushCore
public import Postgres

/// One device's outcome for one message: appended once, when its job completes.
public struct DeliveryRecord: Sendable, Equatable {
    public typealias State = DeliveryState

    public var apnsID: String
    public var messageID: String
    public var appID: String
    public var subscriptionID: String
    public var liveActivityID: String?
    public var tokenKind: TokenKind
    public var token: String
    public var state: State
    public var attempts: Int
    public var reason: String?
    public var apnsStatus: Int?

    init(job: DeliveryJob, recipient: DeliveryJob.Recipient, state: State, reason: String? = nil, apnsStatus: Int? = nil,
         attempts: Int? = nil) {
        apnsID = APNSIdentifier.derive(messageID: job.messageID, subscriptionID: recipient.subscriptionID,
                                             tokenKind: job.tokenKind.rawValue)
        messageID = job.messageID
        appID = job.appID
        subscriptionID = recipient.subscriptionID
        liveActivityID = recipient.liveActivityID
        tokenKind = job.tokenKind
        token = recipient.token
        self.state = state
        self.attempts = attempts ?? job.attempt
        self.reason = reason
        self.apnsStatus = apnsStatus
    }

    /// Appends every record in one statement.
    static func append(_ records: [DeliveryRecord], in connection: PostgresConnection) throws {
        guard !records.isEmpty else { return }
        try connection.query("""
            INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, live_activity_id, token_kind, token, state,
                                    attempts, error_reason, apns_status, finished_at)
            SELECT v.apns_id::uuid, v.message_id, v.app_id, v.subscription_id, v.live_activity_id, v.token_kind, v.token,
                   v.state, v.attempts, v.reason, v.status, now()
            FROM unnest(\(records.map(\.apnsID))::text[], \(records.map(\.messageID))::text[], \(records.map(\.appID))::text[],
                        \(records.map(\.subscriptionID))::text[], \(records.map(\.liveActivityID))::text[],
                        \(records.map(\.tokenKind.rawValue))::text[], \(records.map(\.token))::text[],
                        \(records.map(\.state.rawValue))::text[], \(records.map(\.attempts))::int[],
                        \(records.map(\.reason))::text[], \(records.map(\.apnsStatus))::int[])
                 AS v(apns_id, message_id, app_id, subscription_id, live_activity_id, token_kind, token, state, attempts,
                      reason, status)
            """)
    }
}
