package import OpenPushCore
package import Postgres

/// The `live_activity_channels` table: every read is keyed by app.
package enum ChannelStore {
    package struct Channel: Sendable {
        package var id: String
        package var appID: String
        package var name: String
        package var channelID: String
        package var storagePolicy: ChannelStoragePolicy
        package var environment: DeviceEnvironment
        package var createdAt: Double

        package init(id: String, appID: String, name: String, channelID: String, storagePolicy: ChannelStoragePolicy,
                     environment: DeviceEnvironment, createdAt: Double) {
            self.id = id
            self.appID = appID
            self.name = name
            self.channelID = channelID
            self.storagePolicy = storagePolicy
            self.environment = environment
            self.createdAt = createdAt
        }

        package var json: JSONValue {
            [
                "id": .string(id), "name": .string(name), "channel_id": .string(channelID),
                "message_storage_policy": .int(Int64(storagePolicy.rawValue)), "environment": .string(environment.rawValue),
                "created_at": .string(Timestamp.iso8601(createdAt)),
            ]
        }
    }

    package static let columns: PostgresQuery = """
        id, app_id, name, channel_id, message_storage_policy::int AS message_storage_policy, environment,
        extract(epoch FROM created_at)::float8 AS created_at
        """

    package static func channel(_ row: PostgresRow) throws -> Channel {
        let stored: String = try row.decode("environment")
        // Never a default: a channel of the wrong environment is managed at the wrong APNs hosts.
        guard let environment = DeviceEnvironment(rawValue: stored) else {
            let id: String = try row.decode("id")
            throw InvariantViolation("channel \(id) has an unknown environment '\(stored)'")
        }
        let policy: Int = try row.decode("message_storage_policy")
        guard let storagePolicy = ChannelStoragePolicy(rawValue: policy) else {
            let id: String = try row.decode("id")
            throw InvariantViolation("channel \(id) has an unknown message storage policy \(policy)")
        }
        return Channel(id: try row.decode("id"), appID: try row.decode("app_id"), name: try row.decode("name"),
                       channelID: try row.decode("channel_id"), storagePolicy: storagePolicy,
                       environment: environment,
                       createdAt: try row.decode("created_at"))
    }

    package static func nameExists(appID: String, name: String, in connection: PostgresConnection) throws -> Bool {
        try !connection.query("""
            SELECT 1 FROM live_activity_channels WHERE app_id = \(appID) AND md5(name) = md5(\(name)) AND name = \(name)
            """).isEmpty
    }

    /// Inserts the channel; nil when the name was taken meanwhile.
    package static func insert(_ channel: Channel, in connection: PostgresConnection) throws -> Channel? {
        try connection.query("""
            INSERT INTO live_activity_channels (id, app_id, name, channel_id, message_storage_policy, environment, created_at)
            VALUES (\(channel.id), \(channel.appID), \(channel.name), \(channel.channelID), \(Int16(channel.storagePolicy.rawValue)),
                    \(channel.environment.rawValue), to_timestamp(\(channel.createdAt)))
            ON CONFLICT DO NOTHING
            RETURNING \(columns)
            """).first.map { try Self.channel($0) }
    }

    package static func find(appID: String, id: String, in connection: PostgresConnection) throws -> Channel? {
        try connection.query("""
            SELECT \(columns) FROM live_activity_channels WHERE app_id = \(appID) AND id = \(id)
            """).first.map(channel)
    }

    package static func find(appID: String, name: String, in connection: PostgresConnection) throws -> Channel? {
        try connection.query("""
            SELECT \(columns) FROM live_activity_channels WHERE app_id = \(appID) AND md5(name) = md5(\(name)) AND name = \(name)
            """).first.map(channel)
    }

    package static func page(appID: String, limit: Int, offset: Int, in connection: PostgresConnection) throws -> (total: Int, channels: [Channel]) {
        let total: Int = try connection.query("""
            SELECT count(*)::int AS n FROM live_activity_channels WHERE app_id = \(appID)
            """)[0].decode("n")
        let rows = try connection.query("""
            SELECT \(columns) FROM live_activity_channels WHERE app_id = \(appID)
            ORDER BY created_at, id LIMIT \(limit) OFFSET \(offset)
            """)
        return (total, try rows.map(channel))
    }

    package static func delete(appID: String, id: String, in connection: PostgresConnection) throws {
        try connection.query("DELETE FROM live_activity_channels WHERE app_id = \(appID) AND id = \(id)")
    }

    /// APNs answered a broadcast `ChannelNotRegistered`: the channel is gone there, so it goes
    /// here too (its broadcasts' rows keep its ids), with `token.invalidated` naming it, the way
    /// a 410 ends a device token. Only while the row still holds that APNs channel id.
    package static func forgetUnregistered(_ delivery: ClaimedDelivery, reason: String?, in connection: PostgresConnection) throws {
        let rows = try connection.query("""
            DELETE FROM live_activity_channels
            WHERE app_id = \(delivery.appID) AND id = \(delivery.subscriptionID) AND channel_id = \(delivery.token)
            RETURNING app_id, id AS subscription_id
            """)
        try LiveActivityEvents.appendTokenInvalidated(Array(rows), tokenKind: .channel, reason: reason, in: connection)
    }
}
