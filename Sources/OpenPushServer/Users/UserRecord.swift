import OpenPushCore
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
    package var aliases: [String: String]

    package var externalID: String? { aliases[AliasLabel.externalID] }

    static let columns: PostgresQuery = """
        SELECT u.id, u.app_id, u.tags::text AS tags, u.language, u.timezone_id, u.country FROM users u
        """

    init(row: PostgresRow, aliases: [String: String]) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        tags = TagChanges.decode(json: try row.decode("tags"))
        language = try row.decode("language")
        timezoneID = try row.decode("timezone_id")
        country = try row.decode("country")
        self.aliases = aliases
    }
}
