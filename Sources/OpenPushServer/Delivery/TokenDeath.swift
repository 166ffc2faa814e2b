import OpenPushCore
import Postgres

/// A dead token is handled by kind (contract, "Lifecycle"): a push-to-start token is deleted;
/// an update token ends only its activity row (it says nothing about the device); an ordinary
/// device token marks the subscription's token invalid. Never the other way round.
///
/// Apple's rule for a 410: its `timestamp` is when APNs learned the token was invalid, and a
/// token the device registered again after that time is still good — keep it.
enum TokenDeath {
    static func record(_ delivery: ClaimedDelivery, invalidSince: Double?, now: Double, in connection: PostgresConnection) throws {
        switch delivery.tokenKind {
        case .pushToStart:
            try connection.query("""
                DELETE FROM push_to_start_tokens WHERE subscription_id = \(delivery.subscriptionID) AND token = \(delivery.token)
                  AND \(registeredBefore("updated_at", invalidSince))
                """)
        case .update:
            if let row = delivery.liveActivityID {
                try LiveActivityStore.endForDeadToken(rowID: row, registeredBefore: invalidSince, now: now, in: connection)
            }
        case .device, .widget:
            try connection.query("""
                UPDATE subscriptions SET token_invalid_at = COALESCE(token_invalid_at, to_timestamp(\(now)))
                WHERE id = \(delivery.subscriptionID) AND token = \(delivery.token)
                  AND \(registeredBefore("last_session_at", invalidSince))
                """)
        }
    }

    /// True when the row's registration time `column` is not after `invalidSince` (always
    /// true without a timestamp: a 400 BadDeviceToken carries none).
    static func registeredBefore(_ column: String, _ invalidSince: Double?) -> PostgresQuery {
        guard let invalidSince else { return "true" }
        return "\(identifier: column) <= to_timestamp(\(invalidSince))"
    }
}
