package import OpenPushCore
package import Postgres

/// The `messages` and `deliveries` tables from the sending side.
package enum MessageStore {
    /// Devices one Live Activity request reaches at most; the rest of the audience is counted,
    /// not sent, and the message is marked truncated.
    package static let liveActivityFanOutCap = 2000

    /// The channel delivery workers LISTEN on; the payload is the app id. A NOTIFY here may mean
    /// a notification is due for expansion.
    package static let deliveryChannel = "openpush_deliveries"
    /// The channel that says jobs were queued and nothing waits for expansion (a send expanded
    /// in its own transaction): it wakes a loop without sending every loop's next claim through
    /// the expansion step to find nothing.
    package static let jobsChannel = "openpush_jobs"

    package struct NewMessage: Sendable {
        package var appID: String
        /// The validated send, stored in its canonical form for the workers; the kind follows from it.
        package var send: MessageSend
        package var event: LiveActivityEvent?
        package var name: String?
        package var activityType: String?
        package var activityID: String?
        /// The request as it came, for the view to echo.
        package var request: JSONObject
        /// A Live Activity audience's are stored by `recordAudience` once it is queued.
        package var audienceTotal: Int
        package var truncated: Bool
        /// The shared demo tenant whose key sent it: only that tenant reads or cancels it.
        package var tenantID: String?
        /// A Live Activity push's `aps.timestamp` (see `nextActivityTimestamp`).
        package var pushTimestamp: Int?

        package init(appID: String, send: MessageSend, event: LiveActivityEvent? = nil, name: String?,
                    activityType: String? = nil, activityID: String? = nil, request: JSONObject, audienceTotal: Int = 0,
                    truncated: Bool = false, tenantID: String? = nil, pushTimestamp: Int? = nil) {
            self.appID = appID
            self.send = send
            self.event = event
            self.name = name
            self.activityType = activityType
            self.activityID = activityID
            self.request = request
            self.audienceTotal = audienceTotal
            self.truncated = truncated
            self.tenantID = tenantID
            self.pushTimestamp = pushTimestamp
        }
    }

    /// Stores a new message in the first state of its lifecycle (`MessageLifecycle.created`):
    /// a notification waits for its expansion from `send_after`, anything else is queued now.
    package static func insert(_ message: NewMessage, now: Double, in connection: PostgresConnection) throws -> String {
        let id = newID(now: now)
        let kind = message.send.kind
        let expansion: MessageExpansion? = MessageLifecycle.created(kind) == .pending ? .pending : nil
        try connection.query("""
            INSERT INTO messages (\(columns)) VALUES (\(values(message, id: id, now: now, expansion: "\(expansion?.rawValue)")))
            """)
        return id
    }

    package static func newID(now: Double) -> String {
        Identifier.make(prefix: "msg", now: now, random: KeyMaterial.identifierEntropy())
    }

    /// The columns a new message row is given (`values`), for an `INSERT INTO messages`.
    static let columns: PostgresQuery = """
        id, app_id, kind, event, name, activity_type, activity_id, request, send, audience_total,
        truncated, tenant_id, push_timestamp, send_after, expansion, created_at
        """

    /// `columns`' values for `message`; `expansion` and `audienceTotal` (the message's when nil)
    /// may be expressions of the statement that writes the row.
    static func values(_ message: NewMessage, id: String, now: Double, expansion: PostgresQuery,
                       audienceTotal: PostgresQuery? = nil) -> PostgresQuery {
        let kind = message.send.kind
        let total: PostgresQuery = if let audienceTotal { audienceTotal } else { "\(message.audienceTotal)" }
        // Typed: in an `INSERT … SELECT` a bind is text unless cast.
        return """
            \(id)::text, \(message.appID)::text, \(kind.rawValue)::text, \(message.event?.rawValue)::text, \(message.name)::text,
            \(message.activityType)::text, \(message.activityID)::text, \(JSONValue.object(message.request).serialized)::jsonb,
            \(message.send.stored.serialized)::jsonb, (\(total))::int,
            \(message.truncated)::boolean, \(message.tenantID)::text, \(message.pushTimestamp.map(Int64.init))::bigint,
            to_timestamp(\(message.send.sendAfter(now: now))::float8), (\(expansion))::text, to_timestamp(\(now)::float8)
            """
    }

    /// The `kind` column of a message row, typed.
    static func kind(_ row: PostgresRow) throws -> MessageKind {
        let raw: String = try row.decode("kind")
        guard let kind = MessageKind(rawValue: raw) else { throw InvariantViolation("messages.kind is '\(raw)'") }
        return kind
    }

    /// What queueing a Live Activity audience found: everyone in it, and how many of them were
    /// queued (the first `liveActivityFanOutCap`).
    package struct QueuedAudience: Sendable, Equatable {
        package var total: Int
        package var queued: Int
        package var truncated: Bool { total > MessageStore.liveActivityFanOutCap }

        package init(total: Int, queued: Int) {
            self.total = total
            self.queued = queued
        }
    }

    /// Queues a Live Activity message's audience as jobs in the urgent lane, in one statement
    /// that reads the audience once: it counts everyone and queues the first
    /// `liveActivityFanOutCap`, most recently active devices first, ties by id (the devices most
    /// likely to be looked at). `audience` yields `subscription_id`, `token`, `live_activity_id`
    /// (null where there is none) and `last_session_at` (see `LiveActivityAudience`). The message
    /// row must exist; `recordAudience` stores what this returns on it.
    package static func queueLiveActivity(messageID: String, appID: String, tokenKind: TokenKind, audience: PostgresQuery,
                                         in connection: PostgresConnection) throws -> QueuedAudience {
        let insert = DeliveryQueue.jobsInsert(from: "r", messageID: messageID, appID: appID, lane: .urgent,
                                              tokenKind: tokenKind, jobSize: DeliveryQueue.defaultJobSize)
        let row = try connection.query("""
            WITH a AS MATERIALIZED (\(audience)),
            r AS (SELECT a.subscription_id, a.token, a.live_activity_id, NULL::int AS badge FROM a
                  ORDER BY a.last_session_at DESC, a.subscription_id
                  LIMIT \(liveActivityFanOutCap)),
            jobs AS (\(insert))
            SELECT (SELECT count(*) FROM a)::int AS total, (SELECT COALESCE(sum(n), 0) FROM jobs)::int AS queued
            """)[0]
        return QueuedAudience(total: try row.decode("total"), queued: try row.decode("queued"))
    }

    /// Stores on the message how many its audience held and whether the cap cut it.
    package static func recordAudience(_ audience: QueuedAudience, messageID: String, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE messages SET audience_total = \(audience.total), truncated = \(audience.truncated) WHERE id = \(messageID)
            """)
    }

    /// The `aps.timestamp` of a new push to `activityID`: now, or one past the last one handed
    /// out, so pushes to one activity are strictly increasing in the order they were queued.
    /// The clock's row stays locked until the send commits, so concurrent sends take turns.
    package static func nextActivityTimestamp(appID: String, activityID: String, now: Double,
                                             in connection: PostgresConnection) throws -> Int {
        let clock = LiveActivityPayload.nextTimestamp(now: now, previous: nil)
        let value: Int64 = try connection.query("""
            INSERT INTO live_activity_clocks (app_id, activity_id, last_timestamp) VALUES (\(appID), \(activityID), \(Int64(clock)))
            ON CONFLICT (app_id, md5(activity_id)) DO UPDATE
            SET last_timestamp = GREATEST(EXCLUDED.last_timestamp, live_activity_clocks.last_timestamp + 1)
            RETURNING last_timestamp
            """)[0].decode("last_timestamp")
        return Int(value)
    }

    /// Wakes the delivery workers when the transaction commits.
    package static func notifyWorkers(appID: String, in connection: PostgresConnection) throws {
        try connection.query("SELECT pg_notify(\(deliveryChannel), \(appID))")
    }
}
