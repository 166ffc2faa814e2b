import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Subscriptions written straight into the table, so audience tests choose every column.
struct SubscriptionFixture {
    var id: String
    var tags: JSONValue = [:]
    var language: String?
    var country: String?
    var appVersion: String?
    var sessionCount = 1
    var firstSessionHoursAgo = 0.0
    var lastSessionHoursAgo = 0.0
    var enabled = true
    var retired = false

    /// The token is the id: unique per app, which is all the table asks.
    func insert(appID: String, now: Double, into app: TestApp) async throws {
        try await app.services.database.query("""
            INSERT INTO subscriptions (id, app_id, token, tags, language, country, app_version, enabled, session_count,
                                       first_session_at, last_session_at, retired_at)
            VALUES (\(id), \(appID), \(id), \(tags.serialized)::jsonb, \(language), \(country), \(appVersion), \(enabled),
                    \(sessionCount), to_timestamp(\(now - firstSessionHoursAgo * 3600)),
                    to_timestamp(\(now - lastSessionHoursAgo * 3600)), to_timestamp(\(retired ? now : nil)))
            """)
    }
}
