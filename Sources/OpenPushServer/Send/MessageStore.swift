public import OpenPushCore
public import Postgres

/// The `messages` and `deliveries` tables from the sending side.
public enum MessageStore {
    /// Devices one Live Activity request reaches at most; the rest of the audience is counted,
    /// not sent, and the message is marked truncated.
    public static let liveActivityFanOutCap = 2000

    /// The channel delivery workers LISTEN on; the payload is the app id.
    public static let deliveryChannel = "openpush_deliveries"

    public struct NewMessage: Sendable {
        public var appID: String
        public var kind: String
        public var event: LiveActivityEvent?
        public var name: String?
        public var activityType: String?
        public var activityID: String?
        public var request: JSONObject
        public var audienceTotal: Int
        public var truncated: Bool
        /// The shared demo tenant whose key sent it: only that tenant reads or cancels it.
        public var tenantID: String?

        public init(appID: String, kind: String, event: LiveActivityEvent?, name: String?, activityType: String?,
                    activityID: String?, request: JSONObject, audienceTotal: Int, truncated: Bool, tenantID: String? = nil) {
            self.appID = appID
            self.kind = kind
            self.event = event
            self.name = name
            self.activityType = activityType
            self.activityID = activityID
            self.request = request
            self.audienceTotal = audienceTotal
            self.truncated = truncated
            self.tenantID = tenantID
        }
    }

    public static func insert(_ message: NewMessage, now: Double, in connection: PostgresConnection) throws -> String {
        let id = Identifier.make(prefix: "msg", now: now, random: KeyMaterial.identifierEntropy())
        try connection.query("""
            INSERT INTO messages (id, app_id, kind, event, name, activity_type, activity_id, request, audience_total,
                                  truncated, tenant_id, created_at)
            VALUES (\(id), \(message.appID), \(message.kind), \(message.event?.rawValue), \(message.name), \(message.activityType),
                    \(message.activityID), \(JSONValue.object(message.request).serialized)::jsonb, \(message.audienceTotal),
                    \(message.truncated), \(message.tenantID), to_timestamp(\(now)))
            """)
        return id
    }

    /// Queues one delivery per row of `recipients`, a query yielding `subscription_id`, `token`
    /// and `live_activity_id` (null where there is none). Each row gets its `apns_id` now, so
    /// every retry of it carries the same one. Returns how many were queued.
    @discardableResult
    public static func queueDeliveries(messageID: String, appID: String, tokenKind: String, recipients: PostgresQuery,
                                       now: Double, in connection: PostgresConnection) throws -> Int {
        try connection.query("""
            INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, live_activity_id, token_kind, token,
                                    state, next_attempt_at, created_at)
            SELECT gen_random_uuid(), \(messageID), \(appID), r.subscription_id, r.live_activity_id, \(tokenKind), r.token,
                   'queued', to_timestamp(\(now)), to_timestamp(\(now))
            FROM (\(recipients)) AS r
            """).affectedRows
    }

    /// Wakes the delivery workers when the transaction commits.
    public static func notifyWorkers(appID: String, in connection: PostgresConnection) throws {
        try connection.query("SELECT pg_notify(\(deliveryChannel), \(appID))")
    }
}
