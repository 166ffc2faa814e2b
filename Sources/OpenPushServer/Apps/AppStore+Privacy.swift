import OpenPushCore
import OpenPushDelivery
import Postgres

extension AppStore {
    /// The privacy settings of a new app, in its creation's transaction: only what was given
    /// (the column's default is `"New notification"`).
    static func applyPrivacySettings(_ settings: AppSettings, appID: String, in connection: PostgresConnection) throws {
        guard let text = settings.defaultPrivacyText else { return }
        try connection.query("UPDATE apps SET default_privacy_text = \(text) WHERE id = \(appID)")
    }
}
