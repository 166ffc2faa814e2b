import Postgres

/// A dead token is handled by kind (contract, "Lifecycle"): a push-to-start token is deleted;
/// an update token ends only its activity row (it says nothing about the device); an ordinary
/// device token marks the subscription's token invalid. Never the other way round.
enum TokenDeath {
    static func record(_ delivery: ClaimedDelivery, now: Double, in connection: PostgresConnection) throws {
        switch delivery.tokenKind {
        case "push_to_start":
            try connection.query("""
                DELETE FROM push_to_start_tokens WHERE subscription_id = \(delivery.subscriptionID) AND token = \(delivery.token)
                """)
        case "update":
            if let row = delivery.liveActivityID {
                try LiveActivityStore.endForDeadToken(rowID: row, now: now, in: connection)
            }
        default:
            try connection.query("""
                UPDATE subscriptions SET token_invalid_at = COALESCE(token_invalid_at, to_timestamp(\(now)))
                WHERE id = \(delivery.subscriptionID) AND token = \(delivery.token)
                """)
        }
    }
}
