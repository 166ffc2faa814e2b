package import OpenPushCore
import OpenPushDelivery
import Postgres

/// A user of an app with its aliases (label → value, one value per label).
package struct UserRecord: Sendable, Equatable {
    package var id: String
    package var appID: String
    package var tags: [String: String]
    package var language: String?
    package var timezoneID: String?
    package var country: String?
    package var latitude: Double?
    package var longitude: Double?
    /// Unix seconds, as set through `properties`; nil when never set.
    package var firstActive: Int64?
    package var lastActive: Int64?
    /// What `deltas` added up; nil when none was ever sent.
    package var sessionCount: Int64?
    package var sessionTime: Int64?
    package var amountSpent: Double?
    /// The latest purchases, oldest first (`UserStore.keptPurchases` of them).
    package var purchases: [JSONValue]
    package var aliases: [String: String]

    package var externalID: String? { aliases[AliasLabel.externalID] }

    static let columns: PostgresQuery = """
        SELECT u.id, u.app_id, u.tags::text AS tags, u.language, u.timezone_id, u.country, u.latitude, u.longitude,
               u.first_active, u.last_active, u.session_count, u.session_time, u.amount_spent::float8 AS amount_spent,
               u.purchases::text AS purchases
        FROM users u
        """

    init(row: PostgresRow, aliases: [String: String]) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        tags = TagChanges.decode(json: try row.decode("tags"))
        language = try row.decode("language")
        timezoneID = try row.decode("timezone_id")
        country = try row.decode("country")
        latitude = try row.decode("latitude")
        longitude = try row.decode("longitude")
        firstActive = try row.decode("first_active")
        lastActive = try row.decode("last_active")
        sessionCount = try row.decode("session_count")
        sessionTime = try row.decode("session_time")
        amountSpent = try row.decode("amount_spent")
        let purchases: String? = try row.decode("purchases")
        self.purchases = purchases.flatMap { try? JSONValue.parse($0) }?.arrayValue ?? []
        self.aliases = aliases
    }
}
