public import OpenPushCore
public import Postgres

/// One device's outcome for one message: appended once, when its job completes (the job gives
/// the message, app and token kind).
public struct DeliveryRecord: Sendable, Equatable {
    public typealias State = DeliveryState

    public var apnsID: String
    public var subscriptionID: String
    public var liveActivityID: String?
    public var token: String
    public var state: State
    public var attempts: Int
    public var reason: String?
    public var apnsStatus: Int?

    /// `apnsID` when the caller has it already (deriving it is a hash per recipient).
    init(job: DeliveryJob, recipient: DeliveryJob.Recipient, state: State, reason: String? = nil, apnsStatus: Int? = nil,
         attempts: Int? = nil, apnsID: String? = nil) {
        self.apnsID = apnsID ?? APNSIdentifier.derive(messageID: job.messageID, subscriptionID: recipient.subscriptionID,
                                                      tokenKind: job.tokenKind.rawValue)
        subscriptionID = recipient.subscriptionID
        liveActivityID = recipient.liveActivityID
        token = recipient.token
        self.state = state
        self.attempts = attempts ?? job.attempt
        self.reason = reason
        self.apnsStatus = apnsStatus
    }

    /// Appends every record of one job in one statement: the per-recipient columns as arrays,
    /// what the job shares as single values.
    static func append(_ records: [DeliveryRecord], of job: DeliveryJob, in connection: PostgresConnection) throws {
        guard !records.isEmpty else { return }
        try connection.query("""
            INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, live_activity_id, token_kind, token, state,
                                    attempts, error_reason, apns_status, finished_at)
            SELECT v.apns_id::uuid, \(job.messageID), \(job.appID), v.subscription_id, v.live_activity_id,
                   \(job.tokenKind.rawValue), v.token, v.state, v.attempts, v.reason, v.status, now()
            FROM unnest(\(records.map(\.apnsID))::text[], \(records.map(\.subscriptionID))::text[],
                        \(records.map(\.liveActivityID))::text[], \(records.map(\.token))::text[],
                        \(records.map(\.state.rawValue))::text[], \(records.map(\.attempts))::int[],
                        \(records.map(\.reason))::text[], \(records.map(\.apnsStatus))::int[])
                 AS v(apns_id, subscription_id, live_activity_id, token, state, attempts, reason, status)
            """)
    }
}
