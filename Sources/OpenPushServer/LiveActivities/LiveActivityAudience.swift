import OpenPushCore
import OpenPushDelivery
import Postgres

/// Who a Live Activity send reaches, as queries yielding `subscription_id`, `token`,
/// `live_activity_id`, `activity_type` and `last_session_at`.
enum LiveActivityAudience {
    /// Start: the targeted devices (already reachable and the tenant's own, see
    /// `AudienceResolver`) holding a push-to-start token for the type.
    static func startable(targeted: PostgresQuery, appID: String, activityType: String) -> PostgresQuery {
        """
        SELECT s.id AS subscription_id, p.token AS token, NULL::text AS live_activity_id,
               NULL::text AS activity_type, s.last_session_at AS last_session_at
        FROM subscriptions s
        JOIN push_to_start_tokens p ON p.subscription_id = s.id AND p.app_id = s.app_id AND p.activity_type = \(activityType)
        WHERE s.app_id = \(appID) AND s.id IN (\(targeted))
        """
    }

    /// Update and end: the open rows of the activity id inside the event's window, and nothing else.
    static func holders(appID: String, activityID: String, event: LiveActivityEvent, tenantID: String?, now: Double) -> PostgresQuery {
        """
        SELECT la.subscription_id AS subscription_id, la.update_token AS token, la.id AS live_activity_id,
               la.activity_type AS activity_type, s.last_session_at AS last_session_at
        FROM live_activities la JOIN subscriptions s ON s.id = la.subscription_id
        WHERE la.app_id = \(appID) AND la.activity_id = \(activityID) AND \(LiveActivityWindow.selectable(event, now: now))
          \(tenantCondition(tenantID))
        """
    }

    /// A shared demo app's tenant reaches only the devices linked to it.
    static func tenantCondition(_ tenantID: String?) -> PostgresQuery {
        guard let tenantID else { return "" }
        return "AND s.tenant_id = \(tenantID)"
    }
}
