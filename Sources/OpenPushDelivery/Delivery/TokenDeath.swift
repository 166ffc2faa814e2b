import OpenPushCore
import Postgres

/// A dead token is handled by kind (contract, "Lifecycle"): a push-to-start token is deleted;
/// an update token ends only its activity row (it says nothing about the device); an ordinary
/// device token marks the subscription's token invalid; a device's extra token (VoIP and the
/// other `ExtraTokenKind`s) is deleted alone, the device and its other tokens untouched; a
/// broadcast channel APNs no longer knows is deleted. Never the other way round. A token that really died appends
/// `token.invalidated` (and an update token's activity `live_activity.ended`).
///
/// Apple's rule for a 410: its `timestamp` is when APNs learned the token was invalid, and a
/// token the device registered again after that time is still good — keep it.
enum TokenDeath {
    /// `reason` is APNs' (`Unregistered`, `BadDeviceToken`, …), for the event.
    static func record(_ delivery: ClaimedDelivery, invalidSince: Double?, now: Double, reason: String? = nil,
                       in connection: PostgresConnection) throws {
        switch delivery.tokenKind {
        case .pushToStart:
            let rows = try connection.query("""
                DELETE FROM push_to_start_tokens WHERE subscription_id = \(delivery.subscriptionID) AND token = \(delivery.token)
                  AND \(registeredBefore("updated_at", invalidSince))
                RETURNING app_id, subscription_id
                """)
            try LiveActivityEvents.appendTokenInvalidated(Array(rows), tokenKind: .pushToStart, reason: reason, in: connection)
        case .update:
            if let row = delivery.liveActivityID,
               let ended = try LiveActivityStore.endedForDeadToken(rowID: row, registeredBefore: invalidSince, now: now, in: connection) {
                try EventOutbox.append([OutboundEvent(type: .tokenInvalidated, appID: ended.appID, data: EventData.tokenInvalidated(
                    subscriptionID: ended.subscriptionID, tokenKind: .update, reason: reason,
                    activityID: ended.activityID))], in: connection)
            }
        case .voip, .location, .pushToTalk, .complication, .fileProvider:
            let rows = try connection.query("""
                DELETE FROM device_push_tokens
                WHERE subscription_id = \(delivery.subscriptionID) AND kind = \(delivery.tokenKind.rawValue)
                  AND token = \(delivery.token) AND \(registeredBefore("updated_at", invalidSince))
                RETURNING app_id, subscription_id
                """)
            try LiveActivityEvents.appendTokenInvalidated(Array(rows), tokenKind: delivery.tokenKind, reason: reason, in: connection)
        case .channel:
            // `ChannelNotRegistered`: the channel is gone at APNs (no timestamp comes with it).
            try ChannelStore.forgetUnregistered(delivery, reason: reason, in: connection)
        case .device, .widget:
            let rows = try connection.query("""
                UPDATE subscriptions SET token_invalid_at = to_timestamp(\(now))
                WHERE id = \(delivery.subscriptionID) AND token = \(delivery.token) AND token_invalid_at IS NULL
                  AND \(registeredBefore("last_session_at", invalidSince))
                RETURNING app_id, id AS subscription_id
                """)
            try LiveActivityEvents.appendTokenInvalidated(Array(rows), tokenKind: delivery.tokenKind, reason: reason, in: connection)
        }
    }

    /// True when the row's registration time `column` is not after `invalidSince` (always
    /// true without a timestamp: a 400 BadDeviceToken carries none).
    static func registeredBefore(_ column: String, _ invalidSince: Double?) -> PostgresQuery {
        guard let invalidSince else { return "true" }
        return "\(identifier: column) <= to_timestamp(\(invalidSince))"
    }
}
