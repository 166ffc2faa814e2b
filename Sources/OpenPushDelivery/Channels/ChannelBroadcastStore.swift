import OpenPushCore
package import Postgres

/// A broadcast's row (`live_activity_broadcasts`): written when it is queued, then what APNs
/// answered each attempt (the notification view shows it), or finished by a cancel.
package enum ChannelBroadcastStore {
    /// The `live_activity_clocks` key of a channel: activity ids cannot hold a `/`, so it never
    /// meets one of the app's activities.
    package static func clockKey(_ channelRowID: String) -> String { "channel/" + channelRowID }

    package static func insert(messageID: String, channel: ChannelStore.Channel, in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO live_activity_broadcasts (message_id, app_id, channel, channel_id, environment)
            VALUES (\(messageID), \(channel.appID), \(channel.id), \(channel.channelID), \(channel.environment.rawValue))
            """)
    }

    /// The broadcast's one recipient, the channel, as `DeliveryQueue.enqueue` reads recipients.
    package static func recipient(_ channel: ChannelStore.Channel) -> PostgresQuery {
        """
        SELECT \(channel.id)::text AS subscription_id, \(channel.channelID)::text AS token,
               NULL::text AS live_activity_id, NULL::int AS badge
        """
    }

    /// One attempt at a broadcast, as its row keeps it.
    struct Outcome: Sendable, Equatable {
        var state: BroadcastState
        var attempts: Int
        var status: Int?
        var reason: String?
        var requestID: String?
        var uniqueID: String?

        /// The attempt's outcome as the engine decided it: a final record, or (none) waiting
        /// for another attempt, with what APNs answered this one.
        init(_ completion: DeliveryQueue.Completion, outcome: PushOutcome?, attempt: Int) {
            attempts = attempt
            if let record = completion.records.first {
                state = BroadcastState(finished: record.state) ?? .error
                status = record.apnsStatus
                reason = record.reason
            } else {
                state = .queued
                status = outcome?.status
                reason = outcome?.reason
            }
            if case .answered(let answer)? = outcome {
                requestID = answer.requestID
                uniqueID = answer.uniqueID
            }
        }
    }

    /// Records one attempt; a final one sets `finished_at`.
    static func record(_ outcome: Outcome, messageID: String, in connection: PostgresConnection) throws {
        let waiting = outcome.state == .queued
        try connection.query("""
            UPDATE live_activity_broadcasts
            SET state = \(outcome.state.rawValue), attempts = \(outcome.attempts), apns_status = \(outcome.status),
                apns_reason = \(outcome.reason), apns_request_id = COALESCE(\(outcome.requestID), apns_request_id),
                apns_unique_id = COALESCE(\(outcome.uniqueID), apns_unique_id),
                finished_at = CASE WHEN \(waiting) THEN NULL ELSE now() END
            WHERE message_id = \(messageID)
            """)
    }

    /// A cancel marks a broadcast that no worker holds as `cancelled`: its job is gone, so
    /// nothing else would ever finish the row. One in flight is finished by its worker, which
    /// sees the cancel when it loads the message.
    static func cancelQueued(messageID: String, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE live_activity_broadcasts SET state = \(BroadcastState.cancelled.rawValue), finished_at = now()
            WHERE message_id = \(messageID) AND state = \(BroadcastState.queued.rawValue)
              AND NOT EXISTS (SELECT 1 FROM delivery_jobs WHERE message_id = \(messageID))
            """)
    }
}
