import OpenPushCore
import OpenPushDelivery
import Postgres

extension AppStore {
    /// Lifts the app's web push pause when its VAPID key or subject changed (what push services
    /// refused); the workers are woken when the transaction commits.
    static func resumeWebPush(appID: String, in connection: PostgresConnection) throws {
        let resumed = try connection.query("""
            UPDATE apps SET web_push_paused_at = NULL WHERE id = \(appID) AND web_push_paused_at IS NOT NULL RETURNING id
            """)
        if !resumed.isEmpty { try MessageStore.notifyWorkers(appID: appID, in: connection) }
    }
}
