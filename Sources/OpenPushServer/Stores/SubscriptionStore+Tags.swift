import OpenPushCore
import Postgres

extension SubscriptionStore {
    /// The number of tag keys of the app's device with `token` (0 when there is none yet), its
    /// row locked until the transaction ends (`TagBound`).
    static func lockedTagCount(token: String, appID: String, in connection: PostgresConnection) throws -> Int {
        try connection.query("""
            SELECT \(TagBound.count) FROM subscriptions WHERE app_id = \(appID) AND token = \(token) FOR UPDATE
            """).first?.decode("tag_count") ?? 0
    }

    static func lockedTagCount(id: String, appID: String, in connection: PostgresConnection) throws -> Int {
        try connection.query("""
            SELECT \(TagBound.count) FROM subscriptions WHERE app_id = \(appID) AND id = \(id) FOR UPDATE
            """).first?.decode("tag_count") ?? 0
    }
}
