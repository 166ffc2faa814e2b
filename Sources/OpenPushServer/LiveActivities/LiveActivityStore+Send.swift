import OpenPushCore
import OpenPushDelivery
import Postgres

extension LiveActivityStore {
    /// The one activity type the holders of an activity id have, nil when none names one.
    /// More than one is a request the send refuses (`SendMessages.multipleActivityTypes`).
    static func holdersActivityTypes(_ holders: PostgresQuery, in connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            SELECT DISTINCT h.activity_type FROM (\(holders)) AS h WHERE h.activity_type IS NOT NULL
            """).map { try $0.decode("activity_type", as: String.self) }
    }

    /// An accepted end closes the rows its jobs go to, so nothing can update them again, and
    /// tells the event feed each one ended remotely.
    static func endQueued(messageID: String, now: Double, in connection: PostgresConnection) throws {
        let ended = try connection.query("""
            UPDATE live_activities
            SET ended_at = to_timestamp(\(now)), ended_reason = \(LiveActivityEndReason.remote.rawValue),
                updated_at = to_timestamp(\(now))
            WHERE id IN (SELECT unnest(live_activity_ids) FROM delivery_jobs WHERE message_id = \(messageID))
              AND ended_at IS NULL
            RETURNING app_id, subscription_id, activity_id
            """)
        try LiveActivityEvents.appendEnded(Array(ended), cause: .remote, in: connection)
    }
}
