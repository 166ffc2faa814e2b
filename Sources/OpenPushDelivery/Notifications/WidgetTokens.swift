import OpenPushCore
import Postgres

/// A widget push token APNs called dead is dropped; the device's own token is untouched.
/// The app registers a new one with its next subscription update. Like every dead token, it
/// is kept when the device registered again after APNs learned it was invalid (`TokenDeath`).
/// A dropped token appends `token.invalidated` (`token_kind: widget`).
enum WidgetTokens {
    static func forget(_ delivery: ClaimedDelivery, invalidSince: Double?, reason: String? = nil,
                       in connection: PostgresConnection) throws {
        let rows = try connection.query("""
            UPDATE subscriptions SET widget_push_token = NULL
            WHERE id = \(delivery.subscriptionID) AND widget_push_token = \(delivery.token)
              AND \(TokenDeath.registeredBefore("last_session_at", invalidSince))
            RETURNING app_id, id AS subscription_id
            """)
        try LiveActivityEvents.appendTokenInvalidated(Array(rows), tokenKind: .widget, reason: reason, in: connection)
    }
}
