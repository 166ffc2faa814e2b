package import OpenPushCore
package import Postgres

/// The inputs that only settle a message — a finished job, an expansion page written, jobs
/// queued — in one statement per call however many messages it names
/// (`openpush_lifecycle_settle`): the rows are locked and settled there, and the machine checks
/// what it did.
extension MessageLifecycleStore {
    /// Applies `input` to each of `messageIDs` (each once) and settles them; a message that
    /// ends emits its `notification.completed`, all of them in one append. Messages that do not
    /// exist are skipped, as `apply(_:messageID:in:)` skips them.
    package static func apply(_ input: MessageLifecycle.Input, messageIDs: [String], in connection: PostgresConnection) throws {
        let ids = Array(Set(messageIDs)).sorted()
        guard !ids.isEmpty else { return }
        guard case .settle(let endExpansion) = OneStatement(input) else {
            for id in ids { try apply(input, messageID: id, in: connection) }
            return
        }
        let rows = try connection.query(prepared: """
            SELECT * FROM openpush_lifecycle_settle(\(ids)::text[], \(endExpansion?.rawValue))
            """)
        try settled(rows, on: input, in: connection)
    }

    /// Checks each row a settle statement returned (`openpush_lifecycle_settle`, or
    /// `openpush_lifecycle_count_settle` for finished jobs) against the machine, and emits the
    /// `notification.completed` of those that completed now, their views read together.
    static func settled(_ rows: PostgresRows, on input: MessageLifecycle.Input, in connection: PostgresConnection) throws {
        // Those that complete, with their app: their views are read together afterwards.
        var completed: [(messageID: String, appID: String)] = []
        for row in rows {
            let messageID: String = try row.decode("message_id")
            let appID: String = try row.decode("message_app_id")
            let snapshot = try Self.snapshot(row, messageID: messageID)
            let changed: MessageLifecycle.Transition
            do {
                changed = try MessageLifecycle.transition(snapshot, on: input)
            } catch {
                throw InvariantViolation("message \(messageID): \(error)")
            }
            let settled = MessageLifecycle.settle(.init(state: changed.state, completed: snapshot.completed),
                                                  jobsLeft: try row.decode("jobs_left"))
            let completes: Bool = try row.decode("completes")
            guard settled.actions.contains(.complete) == completes else {
                throw InvariantViolation("message \(messageID): settling it in SQL and in the machine disagree")
            }
            if completes { completed.append((messageID, appID)) }
        }
        guard !completed.isEmpty else { return }
        let views = try MessageView.findAll(messageIDs: completed.map(\.messageID), in: connection)
        let events = completed.compactMap { message in
            views[message.messageID].map {
                OutboundEvent(type: .notificationCompleted, appID: message.appID, data: EventData.notificationCompleted(view: $0))
            }
        }
        try EventOutbox.append(events, in: connection)
    }

    /// How an input is applied: by the settle statement, with the expansion it ends with, or by
    /// the full transition (a cancel, a failure: rare, and with writes of their own).
    enum OneStatement: Equatable {
        case settle(endingExpansion: MessageExpansion?)
        case fullTransition

        init(_ input: MessageLifecycle.Input) {
            switch input {
            case .jobsQueued, .jobFinished: self = .settle(endingExpansion: nil)
            case .expansionPageWritten(let last):
                // What a page does to a message still pending: ends its expansion after the last one.
                self = .settle(endingExpansion: last ? MessageLifecycle.expansion(afterFirstPage: true) : nil)
            case .expansionFailed, .cancelled, .failed: self = .fullTransition
            }
        }
    }
}
