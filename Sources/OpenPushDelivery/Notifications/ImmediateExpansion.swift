package import OpenPushCore
package import Postgres

/// A notification that names its audience outright and is due now
/// (`NotificationSend.isImmediateAndNamed`), expanded in its send's transaction: the message
/// row, its jobs (the page query, badges, lane and token kind of `NotificationExpansion`) and
/// the workers' wake-up are one statement, and the row is stored in the state the last page of
/// an expansion leaves it in, so no worker runs an expansion step for it. An audience that
/// fills a page is left `pending` after its first page and the workers expand the rest.
package enum ImmediateExpansion {
    /// Whether `send` is expanded with its send: named, due now, and naming fewer targets than
    /// a page holds (an alias may reach several devices; a page that fills leaves the rest to
    /// the workers).
    package static func applies(to send: NotificationSend, now: Double) -> Bool {
        guard send.isImmediateAndNamed(now: now), let named = send.namedTargets else { return false }
        return named < NotificationExpansion.defaultPageSize
    }

    /// Stores the message with its jobs; nil when the audience holds nobody to send to, and
    /// then nothing is written at all.
    package static func enqueue(_ message: MessageStore.NewMessage, send: NotificationSend, targeted: TargetedAudience,
                                now: Double, pageSize: Int = NotificationExpansion.defaultPageSize,
                                jobSize: Int = DeliveryQueue.defaultJobSize,
                                in connection: PostgresConnection) throws -> String? {
        let id = MessageStore.newID(now: now)
        let page = NotificationAudience.recipients(targeted: targeted, appID: message.appID, kind: send.kind,
                                                   excluding: send.excludedServices, browsers: send.excludedBrowsers, after: nil)
        let lane = DeliveryLane.forNotification(interruptionLevel: send.interruptionLevel, kind: send.kind)
        let jobs = DeliveryQueue.jobsInsert(from: "r", messageID: id, appID: message.appID, lane: lane,
                                            tokenKind: send.kind.tokenKind, jobSize: jobSize)
        // The lifecycle of a pending message after this page: queued when it was the last one.
        let last = MessageLifecycle.expansion(afterFirstPage: true).rawValue
        let more = MessageLifecycle.expansion(afterFirstPage: false).rawValue
        let expansion: PostgresQuery = "CASE WHEN counted.n < \(pageSize) THEN \(last) ELSE \(more) END"
        let row = MessageStore.values(message, id: id, now: now, expansion: expansion, audienceTotal: "counted.n")
        // The message's row goes in only when the page found someone; its jobs reference it in
        // the same statement (foreign keys are checked at its end).
        // Planned once per connection: a plan made for each send's values cost more than running
        // it (1.2 ms against 0.8, uncontended), and the send's transaction ends right after.
        let written = try connection.pipeline([Self.genericPlans, ("""
            WITH page AS (\(page) LIMIT \(pageSize)),
            badges AS (\(NotificationExpansion.badgeUpdate(send.badge))),
            r AS (
                SELECT page.id AS subscription_id, page.token, NULL::text AS live_activity_id, badges.badge,
                       row_number() OVER () AS ord
                FROM page LEFT JOIN badges ON badges.id = page.id
            ),
            counted AS (SELECT count(*)::int AS n, max(id) AS last FROM page),
            message AS (
                INSERT INTO messages (\(MessageStore.columns), expanded_through)
                SELECT \(row), counted.last FROM counted WHERE counted.n > 0
                RETURNING id
            ),
            jobs AS (\(jobs)),
            woken AS MATERIALIZED (
                SELECT pg_notify(CASE WHEN counted.n < \(pageSize) THEN \(MessageStore.jobsChannel)
                                      ELSE \(MessageStore.deliveryChannel) END, \(message.appID))
                FROM counted WHERE counted.n > 0
            )
            SELECT (SELECT count(*) FROM message)::int AS stored, (SELECT count(*) FROM woken)::int AS woken
            """ as PostgresQuery).prepared])[1][0]
        let stored: Int = try written.decode("stored")
        return stored > 0 ? id : nil
    }

    /// For the rest of the send's transaction, prepared statements run their generic plan.
    static let genericPlans: PostgresQuery = ("SET LOCAL plan_cache_mode = force_generic_plan" as PostgresQuery).prepared
}
