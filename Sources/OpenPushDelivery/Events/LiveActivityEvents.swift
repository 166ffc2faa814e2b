import OpenPushCore
package import Postgres

/// The Live Activity and token events, appended by the stores in the transaction that changes
/// the rows.
package enum LiveActivityEvents {
    /// `live_activity.ended` for each row (reading `app_id`, `subscription_id`, `activity_id`).
    package static func appendEnded(_ rows: [PostgresRow], cause: LiveActivityEndReason, in connection: PostgresConnection) throws {
        try EventOutbox.append(try rows.map { row in
            OutboundEvent(type: .liveActivityEnded, appID: try row.decode("app_id"), data: EventData.liveActivityEnded(
                activityID: try row.decode("activity_id"), subscriptionID: try row.decode("subscription_id"),
                cause: cause.rawValue))
        }, in: connection)
    }

    /// `token.invalidated` for each row (reading `app_id`, `subscription_id`, and `activity_id`
    /// when the row has one).
    static func appendTokenInvalidated(_ rows: [PostgresRow], tokenKind: TokenKind, reason: String?,
                                       in connection: PostgresConnection) throws {
        try EventOutbox.append(try rows.map { row in
            let activityID: String? = row.columnNames.contains("activity_id") ? try row.decode("activity_id") : nil
            return OutboundEvent(type: .tokenInvalidated, appID: try row.decode("app_id"), data: EventData.tokenInvalidated(
                subscriptionID: try row.decode("subscription_id"), tokenKind: tokenKind, reason: reason,
                activityID: activityID))
        }, in: connection)
    }
}
