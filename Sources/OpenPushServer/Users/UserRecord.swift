import OpenPushCore
import OpenPushDelivery
import Postgres

/// A user of an app with its aliases (label → value, one value per label).
public struct UserRecord: Sendable, Equatable {
    public var id: String
    public var appID: String
    public var tags: [String: String]
    public var language: String?
    public var timezoneID: String?
    public var country: String?
    public var aliases: [String: String]

    public var externalID: String? { aliases[AliasLabel.externalID] }

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
