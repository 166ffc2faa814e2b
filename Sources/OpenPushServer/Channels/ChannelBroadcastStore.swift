import OpenPushCore
import Postgres

/// A broadcast's row outside the worker: written when it is queued, finished by a cancel.
enum ChannelBroadcastStore {
    /// The `live_activity_clocks` key of a channel: activity ids cannot hold a `/`, so it never
    /// meets one of the app's activities.
    static func clockKey(_ channelRowID: String) -> String { "channel/" + channelRowID }

    static func insert(messageID: String, channel: ChannelStore.Channel, in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO live_activity_broadcasts (message_id, app_id, channel, channel_id, environment)
            VALUES (\(messageID), \(channel.appID), \(channel.id), \(channel.channelID), \(channel.environment.rawValue))
            """)
    }

    /// The broadcast's one recipient, the channel, as `DeliveryQueue.enqueue` reads recipients.
    static func recipient(_ channel: ChannelStore.Channel) -> PostgresQuery {
        """
        SELECT \(channel.id)::text AS subscription_id, \(channel.channelID)::text AS token,
               NULL::text AS live_activity_id, NULL::int AS badge
        """
    }

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
