package import OpenPushCore
import OpenPushDelivery
package import Postgres

/// Users and their aliases. A user's devices are the app's subscriptions carrying its
/// `external_id` alias; everything is scoped by app id.
package enum UserStore {
    /// The id of the user a lookup names, or nil.
    package static func resolve(_ lookup: UserLookup, appID: String, in connection: PostgresConnection) throws -> String? {
        let rows: PostgresRows
        switch lookup {
        case .userID(let id):
            rows = try connection.query("SELECT id AS user_id FROM users WHERE app_id = \(appID) AND id = \(id)")
        case .alias(let label, let value):
            rows = try connection.query("""
                SELECT user_id FROM user_aliases WHERE app_id = \(appID) AND label = \(label) AND value = \(value)
                """)
        case .subscriptionID(let id):
            rows = try connection.query("""
                SELECT a.user_id FROM subscriptions s
                JOIN user_aliases a ON a.app_id = s.app_id AND a.label = \(AliasLabel.externalID) AND a.value = s.external_id
                WHERE s.app_id = \(appID) AND s.id = \(id)
                """)
        }
        return try rows.first?.decode("user_id")
    }

    package static func find(id: String, appID: String, in connection: PostgresConnection) throws -> UserRecord? {
        guard let row = try connection.query(UserRecord.columns + " WHERE u.app_id = \(appID) AND u.id = \(id)").first else {
            return nil
        }
        return try UserRecord(row: row, aliases: aliases(userID: id, in: connection))
    }

    static func aliases(userID: String, in connection: PostgresConnection) throws -> [String: String] {
        var aliases: [String: String] = [:]
        for row in try connection.query("SELECT label, value FROM user_aliases WHERE user_id = \(userID)") {
            aliases[try row.decode("label")] = try row.decode("value")
        }
        return aliases
    }

    /// The user holding (label, value) in this app, if any.
    static func owner(label: String, value: String, appID: String, in connection: PostgresConnection) throws -> String? {
        try resolve(.alias(label: label, value: value), appID: appID, in: connection)
    }

    /// Makes sure a user with this `external_id` exists, so a device registered with it is found
    /// through the user routes. Safe under concurrent registrations of one `external_id`: the
    /// loser of the alias insert removes the user it made.
    package static func ensureUser(externalID: String, appID: String, now: Double, in connection: PostgresConnection) throws {
        if try owner(label: AliasLabel.externalID, value: externalID, appID: appID, in: connection) != nil { return }
        let id = Identifier.make(prefix: "usr", now: now, random: KeyMaterial.identifierEntropy())
        try insertUser(id: id, appID: appID, properties: UserProperties(), now: now, in: connection)
        let inserted = try connection.query("""
            INSERT INTO user_aliases (app_id, user_id, label, value) VALUES (\(appID), \(id), \(AliasLabel.externalID), \(externalID))
            ON CONFLICT DO NOTHING RETURNING user_id
            """)
        if inserted.isEmpty {
            try connection.query("DELETE FROM users WHERE id = \(id)")
        }
    }

    static func insertUser(id: String, appID: String, properties: UserProperties, now: Double,
                           in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO users (id, app_id, tags, language, timezone_id, country, latitude, longitude, first_active,
                               last_active, created_at, updated_at)
            VALUES (\(id), \(appID), \((properties.tags ?? .none).setJSON)::jsonb, \(properties.language),
                    \(properties.timezoneID), \(properties.country), \(properties.latitude), \(properties.longitude),
                    \(properties.firstActive), \(properties.lastActive), to_timestamp(\(now)), to_timestamp(\(now)))
            """)
    }
}
