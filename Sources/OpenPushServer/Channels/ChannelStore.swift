import OpenPushCore
import Postgres

/// The `live_activity_channels` table: every read is keyed by app.
enum ChannelStore {
    struct Channel: Sendable {
        var id: String
        var appID: String
        var name: String
        var channelID: String
        var storagePolicy: Int
        var environment: DeviceEnvironment
        var createdAt: Double

        var json: JSONValue {
            [
                "id": .string(id), "name": .string(name), "channel_id": .string(channelID),
                "message_storage_policy": .int(Int64(storagePolicy)), "environment": .string(environment.rawValue),
                "created_at": .string(Timestamp.iso8601(createdAt)),
            ]
        }
    }

    static let columns: PostgresQuery = """
        id, app_id, name, channel_id, message_storage_policy::int AS message_storage_policy, environment,
        extract(epoch FROM created_at)::float8 AS created_at
        """

    static func channel(_ row: PostgresRow) throws -> Channel {
        let stored: String = try row.decode("environment")
        // The column's CHECK allows only the two; anything else is a bug, never production.
        guard let environment = DeviceEnvironment(rawValue: stored) else {
            throw InvariantViolation("channel environment '\(stored)' is neither sandbox nor production")
        }
        return Channel(id: try row.decode("id"), appID: try row.decode("app_id"), name: try row.decode("name"),
                       channelID: try row.decode("channel_id"), storagePolicy: try row.decode("message_storage_policy"),
                       environment: environment,
                       createdAt: try row.decode("created_at"))
    }

    static func nameExists(appID: String, name: String, in connection: PostgresConnection) throws -> Bool {
        try !connection.query("""
            SELECT 1 FROM live_activity_channels WHERE app_id = \(appID) AND md5(name) = md5(\(name)) AND name = \(name)
            """).isEmpty
    }

    /// Inserts the channel; nil when the name was taken meanwhile.
    static func insert(_ channel: Channel, in connection: PostgresConnection) throws -> Channel? {
        try connection.query("""
            INSERT INTO live_activity_channels (id, app_id, name, channel_id, message_storage_policy, environment, created_at)
            VALUES (\(channel.id), \(channel.appID), \(channel.name), \(channel.channelID), \(Int16(channel.storagePolicy)),
                    \(channel.environment.rawValue), to_timestamp(\(channel.createdAt)))
            ON CONFLICT DO NOTHING
            RETURNING \(columns)
            """).first.map { try Self.channel($0) }
    }

    static func find(appID: String, id: String, in connection: PostgresConnection) throws -> Channel? {
        try connection.query("""
            SELECT \(columns) FROM live_activity_channels WHERE app_id = \(appID) AND id = \(id)
            """).first.map(channel)
    }

    static func find(appID: String, name: String, in connection: PostgresConnection) throws -> Channel? {
        try connection.query("""
            SELECT \(columns) FROM live_activity_channels WHERE app_id = \(appID) AND md5(name) = md5(\(name)) AND name = \(name)
            """).first.map(channel)
    }

    static func page(appID: String, limit: Int, offset: Int, in connection: PostgresConnection) throws -> (total: Int, channels: [Channel]) {
        let total: Int = try connection.query("""
            SELECT count(*)::int AS n FROM live_activity_channels WHERE app_id = \(appID)
            """)[0].decode("n")
        let rows = try connection.query("""
            SELECT \(columns) FROM live_activity_channels WHERE app_id = \(appID)
            ORDER BY created_at, id LIMIT \(limit) OFFSET \(offset)
            """)
        return (total, try rows.map(channel))
    }

    static func delete(appID: String, id: String, in connection: PostgresConnection) throws {
        try connection.query("DELETE FROM live_activity_channels WHERE app_id = \(appID) AND id = \(id)")
    }
}
