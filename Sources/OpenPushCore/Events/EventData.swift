/// The `data` object of each event type, built in one place so every producer writes the same
/// shape (docs/api/events.md, "Event types").
package enum EventData {
    /// `delivery.accepted` (no `reason`/`status`) and `delivery.failed` (with them).
    package static func delivery(notificationID: String, subscriptionID: String, tokenKind: TokenKind, apnsID: String,
                                failure: (reason: String?, status: Int?)? = nil) -> JSONObject {
        var data: JSONObject = [
            "notification_id": .string(notificationID), "subscription_id": .string(subscriptionID),
            "token_kind": .string(tokenKind.rawValue), "apns_id": .string(apnsID),
        ]
        if let failure {
            data["reason"] = failure.reason.map(JSONValue.string) ?? .null
            data["status"] = failure.status.map { .int(Int64($0)) } ?? .null
        }
        return data
    }

    /// `token.invalidated`; `activity_id` only for a Live Activity update token.
    package static func tokenInvalidated(subscriptionID: String, tokenKind: TokenKind, reason: String?,
                                        activityID: String? = nil) -> JSONObject {
        var data: JSONObject = [
            "subscription_id": .string(subscriptionID), "token_kind": .string(tokenKind.rawValue),
            "reason": reason.map(JSONValue.string) ?? .null,
        ]
        if let activityID { data["activity_id"] = .string(activityID) }
        return data
    }

    /// `live_activity.registered`.
    package static func liveActivityRegistered(activityID: String, activityType: String?, subscriptionID: String,
                                              created: Bool) -> JSONObject {
        ["activity_id": .string(activityID), "activity_type": activityType.map(JSONValue.string) ?? .null,
         "subscription_id": .string(subscriptionID), "created": .bool(created)]
    }

    /// `live_activity.ended`; `cause` is `device`, `remote`, `dead_token` or `retired`.
    package static func liveActivityEnded(activityID: String, subscriptionID: String, cause: String) -> JSONObject {
        ["activity_id": .string(activityID), "subscription_id": .string(subscriptionID), "cause": .string(cause)]
    }

    /// `app.credentials_expiring`: which credential, when it expires, and the certificate's topics.
    package static func credentialsExpiring(expiresAt: Double, topics: [String]) -> JSONObject {
        ["credential": "apns_certificate", "expires_at": .string(Timestamp.iso8601(expiresAt)),
         "topics": .array(topics.map(JSONValue.string))]
    }

    /// `click`; `activity_id` only for a tap on a Live Activity.
    package static func click(notificationID: String, subscriptionID: String, activityID: String?, first: Bool) -> JSONObject {
        var data: JSONObject = ["notification_id": .string(notificationID), "subscription_id": .string(subscriptionID)]
        if let activityID { data["activity_id"] = .string(activityID) }
        data["first"] = .bool(first)
        return data
    }

    /// The figures of `GET /notifications/{id}` that `notification.completed` carries.
    package static let completedFields = ["successful", "failed", "errored", "converted", "remaining", "canceled",
                                         "clicks_total", "audience_total", "completed_at", "failed_reason",
                                         "errors_by_reason", "suppressed"]

    /// `notification.completed`: `notification_id`, `message_kind`, then `completedFields` of the view.
    package static func notificationCompleted(view: JSONObject) -> JSONObject {
        var data: JSONObject = ["notification_id": view["id"] ?? .null, "message_kind": view["message_kind"] ?? .null]
        for field in completedFields { data[field] = view[field] ?? .null }
        return data
    }
}
