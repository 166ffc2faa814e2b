import Postgres

/// Writes to a broadcast's row outside the worker.
enum ChannelBroadcastStore {
    /// A cancel marks a broadcast that no worker holds as `cancelled`: its job is gone, so
    /// nothing else would ever finish the row. One in flight is finished by its worker, which
    /// sees the cancel when it loads the message.
    static func cancelQueued(messageID: String, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE live_activity_broadcasts SET state = 'cancelled', finished_at = now()
            WHERE message_id = \(messageID) AND state = 'queued'
              AND NOT EXISTS (SELECT 1 FROM delivery_jobs WHERE message_id = \(messageID))
            """)
    }
}
