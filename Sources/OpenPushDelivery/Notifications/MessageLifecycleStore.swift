package import OpenPushCore
package import Postgres

/// The one owner of a message's lifecycle (`MessageLifecycle`): every transaction that changes
/// it — an expansion page, a finished job, a cancel, a failure — calls `apply` after its own
/// writes, and nothing else decides that a message is over.
///
/// `notification.completed` is emitted exactly once: `apply` locks the message row first, so of
/// two transactions finishing the last jobs at once the second waits for the first to commit and
/// then sees its job gone; the stamp `messages.completed_event_at` keeps it to one event. The
/// inputs that only settle a message take one statement (`MessageLifecycleStore+Settle`).
package enum MessageLifecycleStore {
    /// Applies `input` to the message and settles it.
    package static func apply(_ input: MessageLifecycle.Input, messageID: String, in connection: PostgresConnection) throws {
        if OneStatement(input) != .fullTransition {
            return try apply(input, messageIDs: [messageID], in: connection)
        }
        _ = try run(input, messageID: messageID, appID: nil, tenantID: nil, now: nil, in: connection)
    }

    /// A request's cancel: false when the app (or the shared demo tenant) has no such message.
    package static func cancel(messageID: String, appID: String, tenantID: String?, now: Double,
                       in connection: PostgresConnection) throws -> Bool {
        try run(.cancelled, messageID: messageID, appID: appID, tenantID: tenantID, now: now, in: connection)
    }

    private static func run(_ input: MessageLifecycle.Input, messageID: String, appID: String?, tenantID: String?,
                            now: Double?, in connection: PostgresConnection) throws -> Bool {
        guard let (snapshot, messageAppID) = try lockedSnapshot(messageID: messageID, appID: appID, tenantID: tenantID,
                                                                in: connection) else { return false }
        let changed: MessageLifecycle.Transition
        do {
            changed = try MessageLifecycle.transition(snapshot, on: input)
        } catch {
            throw InvariantViolation("message \(messageID): \(error)")
        }
        for action in changed.actions {
            try perform(action, messageID: messageID, appID: messageAppID, now: now, in: connection)
        }
        // A separate statement: it reads a snapshot taken after the lock and the writes above.
        let jobsLeft: Bool = try connection.query(prepared: """
            SELECT EXISTS (SELECT 1 FROM delivery_jobs WHERE message_id = \(messageID)) AS left
            """)[0].decode("left")
        let settled = MessageLifecycle.settle(.init(state: changed.state, completed: snapshot.completed), jobsLeft: jobsLeft)
        for action in settled.actions {
            try perform(action, messageID: messageID, appID: messageAppID, now: now, in: connection)
        }
        return true
    }

    /// The message row, locked until commit, as the machine reads it.
    private static func lockedSnapshot(messageID: String, appID: String?, tenantID: String?,
                                       in connection: PostgresConnection) throws -> (MessageLifecycle.Snapshot, String)? {
        let app: PostgresQuery = appID.map { "AND app_id = \($0)" } ?? ""
        let tenant: PostgresQuery = tenantID.map { "AND tenant_id = \($0)" } ?? ""
        // Prepared: a worker runs it for every job it completes (one text per shape of the lookup).
        guard let row = try connection.query(prepared: """
            SELECT app_id, expansion AS was_expansion, expanded_through IS NOT NULL AS was_expanded_any,
                   cancelled_at IS NOT NULL AS was_cancelled, failed_reason IS NOT NULL AS was_failed,
                   completed_event_at IS NOT NULL AS was_completed
            FROM messages WHERE id = \(messageID) \(app) \(tenant) FOR UPDATE
            """).first else { return nil }
        return (try snapshot(row, messageID: messageID), try row.decode("app_id"))
    }

    /// The snapshot a row names `was_expansion`, `was_expanded_any`, `was_cancelled`, `was_failed`
    /// and `was_completed` (as the lock above and `openpush_lifecycle_settle` return them).
    static func snapshot(_ row: PostgresRow, messageID: String) throws -> MessageLifecycle.Snapshot {
        let expansion = try row.decode("was_expansion", as: String?.self).map { raw in
            guard let expansion = MessageExpansion(rawValue: raw) else {
                throw InvariantViolation("messages.expansion of \(messageID) is '\(raw)'")
            }
            return expansion
        }
        return MessageLifecycle.Snapshot(
            expansion: expansion, expandedAny: try row.decode("was_expanded_any"), cancelled: try row.decode("was_cancelled"),
            failed: try row.decode("was_failed"), completed: try row.decode("was_completed"))
    }

    private static func perform(_ action: MessageLifecycle.Action, messageID: String, appID: String, now: Double?,
                                in connection: PostgresConnection) throws {
        switch action {
        case .endExpansion(let expansion):
            try connection.query("UPDATE messages SET expansion = \(expansion.rawValue) WHERE id = \(messageID)")
        case .recordExpansionFailure(let reason):
            try connection.query("""
                UPDATE messages SET expansion_error = \(reason), failed_reason = \(reason) WHERE id = \(messageID)
                """)
        case .recordCancel:
            let at: PostgresQuery = now.map { "to_timestamp(\($0))" } ?? "now()"
            try connection.query("""
                UPDATE messages SET cancelled_at = COALESCE(cancelled_at, \(at)) WHERE id = \(messageID)
                """)
            try DeliveryQueue.cancel(messageID: messageID, in: connection)
            try ChannelBroadcastStore.cancelQueued(messageID: messageID, in: connection)
        case .failJobs(let reason):
            try DeliveryQueue.fail(messageID: messageID, reason: reason, in: connection)
        case .complete:
            try complete(messageID: messageID, appID: appID, in: connection)
        }
    }

    private static func complete(messageID: String, appID: String, in connection: PostgresConnection) throws {
        let stamped = try connection.query(prepared: """
            UPDATE messages SET completed_event_at = now() WHERE id = \(messageID) AND completed_event_at IS NULL RETURNING id
            """)
        guard !stamped.isEmpty, let view = try MessageView.find(messageID: messageID, appID: appID, in: connection)?.objectValue
        else { return }
        try EventOutbox.append([OutboundEvent(type: .notificationCompleted, appID: appID,
                                              data: EventData.notificationCompleted(view: view))], in: connection)
    }
}
