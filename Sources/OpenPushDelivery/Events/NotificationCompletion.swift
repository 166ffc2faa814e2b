import OpenPushCore
import Postgres

/// `notification.completed`, exactly once per message: when no job of the message remains and it
/// is not still expanding. Every transaction that can make that true — a job's completion, a
/// cancel, a failure, an expansion's last page — calls `check` after its own writes. `check`
/// locks the message row first, so of two transactions finishing the last jobs at once the
/// second waits for the first to commit and then sees its job gone; the stamp
/// `messages.completed_event_at`, set in the deciding statement, keeps it to one event.
enum NotificationCompletion {
    static func check(messageID: String, in connection: PostgresConnection) throws {
        // A separate statement: the check below then reads a snapshot taken after the lock.
        guard let row = try connection.query(prepared: """
            SELECT app_id, completed_event_at IS NULL AS open FROM messages WHERE id = \(messageID) FOR UPDATE
            """).first, try row.decode("open", as: Bool.self) else { return }
        let appID: String = try row.decode("app_id")
        let decided = try connection.query(prepared: """
            UPDATE messages SET completed_event_at = now()
            WHERE id = \(messageID) AND completed_event_at IS NULL AND expansion IS DISTINCT FROM 'pending'
              AND NOT EXISTS (SELECT 1 FROM delivery_jobs WHERE message_id = \(messageID))
            RETURNING id
            """)
        guard !decided.isEmpty, let view = try MessageView.find(messageID: messageID, appID: appID, in: connection)?.objectValue
        else { return }
        try EventOutbox.append([OutboundEvent(type: .notificationCompleted, appID: appID,
                                              data: EventData.notificationCompleted(view: view))], in: connection)
    }
}
