import OpenPushCore
import OpenPushDelivery
package import Postgres

extension UserStore {
    /// Adds aliases to a user. A label the user already has takes the new value, except
    /// `external_id`, which ties the user to its devices and never changes once set. An alias
    /// held by another user is a `409`.
    package static func addAliases(_ identity: [String: String], userID: String, appID: String,
                                  in connection: PostgresConnection) throws {
        let current = try aliases(userID: userID, in: connection)
        for (label, value) in identity.sorted(by: { $0.key < $1.key }) {
            if let owner = try owner(label: label, value: value, appID: appID, in: connection), owner != userID {
                throw APIError(status: 409, "alias \(label) '\(value)' belongs to another user")
            }
            if label == AliasLabel.externalID, let existing = current[label], existing != value {
                throw APIError(status: 409, "this user's external_id is already '\(existing)' and cannot change")
            }
            try connection.query("""
                INSERT INTO user_aliases (app_id, user_id, label, value) VALUES (\(appID), \(userID), \(label), \(value))
                ON CONFLICT (user_id, label) DO UPDATE SET value = EXCLUDED.value
                """)
        }
    }

    package static func addAliases(_ identity: [String: String], userID: String, appID: String, now: Double,
                                  in database: PostgresPool) async throws -> UserRecord? {
        try await conflictsAs409 {
            try await database.transaction { connection in
                try addAliases(identity, userID: userID, appID: appID, in: connection)
                try connection.query("UPDATE users SET updated_at = to_timestamp(\(now)) WHERE id = \(userID)")
                return try find(id: userID, appID: appID, in: connection)
            }
        }
    }

    /// Removes one alias; false when the user has no alias with that label.
    package static func deleteAlias(label: String, userID: String, now: Double, in connection: PostgresConnection) throws -> Bool {
        let deleted = try connection.query("DELETE FROM user_aliases WHERE user_id = \(userID) AND label = \(label) RETURNING label")
        try connection.query("UPDATE users SET updated_at = to_timestamp(\(now)) WHERE id = \(userID)")
        return !deleted.isEmpty
    }

    /// Deletes a user and its aliases. Its devices stay registered (they still receive pushes
    /// sent to segments) but are unlinked: their `external_id` is cleared.
    package static func delete(userID: String, appID: String, now: Double, in connection: PostgresConnection) throws {
        let externalID = try aliases(userID: userID, in: connection)[AliasLabel.externalID]
        try connection.query("DELETE FROM users WHERE app_id = \(appID) AND id = \(userID)")
        if let externalID {
            try connection.query("""
                UPDATE subscriptions SET external_id = NULL, updated_at = to_timestamp(\(now))
                WHERE app_id = \(appID) AND external_id = \(externalID)
                """)
        }
    }
}

extension UserStore {
    /// A new user for a device that has none, named by `identity`'s `external_id`, which the
    /// device then carries. Its other aliases are the caller's to add.
    static func createUser(for subscriptionID: String, identity: [String: String], appID: String, now: Double,
                           in connection: PostgresConnection) throws -> String {
        guard let externalID = identity[AliasLabel.externalID] else {
            throw APIError.badRequest("this subscription has no user: identity must hold external_id, which links it to the user made for it")
        }
        if try owner(label: AliasLabel.externalID, value: externalID, appID: appID, in: connection) != nil {
            throw APIError(status: 409, "alias external_id '\(externalID)' belongs to another user")
        }
        let id = Identifier.make(prefix: "usr", now: now, random: KeyMaterial.identifierEntropy())
        try insertUser(id: id, appID: appID, properties: UserProperties(), now: now, in: connection)
        try connection.query("""
            UPDATE subscriptions SET external_id = \(externalID), updated_at = to_timestamp(\(now))
            WHERE app_id = \(appID) AND id = \(subscriptionID)
            """)
        return id
    }
}
