import Postgres

/// A widget push token APNs called dead is dropped; the device's own token is untouched.
/// The app registers a new one with its next subscription update.
enum WidgetTokens {
    static func forget(_ delivery: ClaimedDelivery, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE subscriptions SET widget_push_token = NULL
            WHERE id = \(delivery.subscriptionID) AND widget_push_token = \(delivery.token)
            """)
    }
}
