/// The life of one message, pure: pending → expanding → queued → done / cancelled / failed.
///
/// A server-side owner locks the message row, reads its `Snapshot`, asks `transition` what an
/// input changes and does the writes it returns, then asks `settle` whether the message is over
/// now; `settle` is the one place that decides `notification.completed`. A message ends when no
/// job of it remains and its audience is no longer being expanded; it ends once (`completed`).
package enum MessageLifecycle {
    package enum State: Sendable, Equatable, CaseIterable {
        /// A notification whose expansion has not written a page yet (scheduled, or not picked up).
        case pending
        /// A notification with pages written and more to come.
        case expanding
        /// Every job is written; they are being sent.
        case queued
        case done
        /// Cancelled: jobs no worker held are gone, those in flight finish first.
        case cancelled
        /// Failed with a reason: jobs already sending finish first.
        case failed

        /// The audience is still being turned into jobs: the message cannot end yet.
        package var isExpanding: Bool { self == .pending || self == .expanding }
    }

    /// The message row as the owner read it, under its lock.
    package struct Snapshot: Sendable, Equatable {
        package var state: State
        /// `notification.completed` was emitted (`messages.completed_event_at` is stamped).
        package var completed: Bool

        package init(state: State, completed: Bool) {
            self.state = state
            self.completed = completed
        }

        /// The state of the row's columns: an expansion still `pending` comes first (the message
        /// cannot end while it expands), then a failure, then a cancel.
        package init(expansion: MessageExpansion?, expandedAny: Bool, cancelled: Bool, failed: Bool, completed: Bool) {
            let state: State = if expansion == .pending {
                expandedAny ? .expanding : .pending
            } else if failed {
                .failed
            } else if cancelled {
                .cancelled
            } else {
                completed ? .done : .queued
            }
            self.init(state: state, completed: completed)
        }
    }

    package enum Input: Sendable, Equatable {
        /// The jobs of a message queued with its audience are written (there may be none).
        case jobsQueued
        /// An expansion page's jobs are written; `last` when the audience is exhausted.
        case expansionPageWritten(last: Bool)
        /// An expansion page failed; `final` when the message is not tried again.
        case expansionFailed(reason: String, final: Bool)
        /// A job completed with nothing of it left to send.
        case jobFinished
        case cancelled
        /// The message cannot be sent (its stored request does not decode): every job is dropped.
        case failed(reason: String)
    }

    package enum Action: Sendable, Equatable {
        /// `messages.expansion` takes its final value.
        case endExpansion(MessageExpansion)
        /// The expansion's failure reason becomes the message's.
        case recordExpansionFailure(reason: String)
        /// `cancelled_at` is stamped (once) and the jobs no worker holds are dropped.
        case recordCancel
        /// The failure reason is stored and every job dropped, its recipients recorded as errors.
        case failJobs(reason: String)
        /// `completed_event_at` is stamped and `notification.completed` emitted.
        case complete
    }

    package struct Transition: Sendable, Equatable {
        package var state: State
        package var actions: [Action]

        package init(_ state: State, _ actions: [Action] = []) {
            self.state = state
            self.actions = actions
        }
    }

    /// An input that cannot happen in the state the message is in.
    package struct IllegalTransition: Error, Sendable, Equatable, CustomStringConvertible {
        package var snapshot: Snapshot
        package var input: Input

        package init(snapshot: Snapshot, input: Input) {
            self.snapshot = snapshot
            self.input = input
        }

        package var description: String {
            "a message \(snapshot.completed ? "completed and " : "")\(snapshot.state) cannot take \(input)"
        }
    }

    /// What `input` changes, before the message is settled.
    package static func transition(_ snapshot: Snapshot, on input: Input) throws(IllegalTransition) -> Transition {
        let state = snapshot.state
        let illegal = IllegalTransition(snapshot: snapshot, input: input)
        switch input {
        case .jobsQueued:
            guard state == .queued, !snapshot.completed else { throw illegal }
            return Transition(.queued)
        case .expansionPageWritten(let last):
            guard state.isExpanding else { throw illegal }
            return last ? Transition(.queued, [.endExpansion(.done)]) : Transition(.expanding)
        case .expansionFailed(let reason, let final):
            guard state.isExpanding else { throw illegal }
            return final ? Transition(.failed, [.endExpansion(.failed), .recordExpansionFailure(reason: reason)]) : Transition(state)
        case .jobFinished:
            // The state stays; whether it was the last job is `settle`'s. One finishing after the
            // message ended (a job queued by hand beside the lifecycle) changes nothing.
            return Transition(state)
        case .cancelled:
            // A cancel is always accepted; on a message that is over it only marks it cancelled.
            let stop: [Action] = state.isExpanding ? [.endExpansion(.cancelled)] : []
            return Transition(state == .failed ? .failed : .cancelled, stop + [.recordCancel])
        case .failed(let reason):
            // Whatever it was: a job of it could not be built, so none of it can be.
            return Transition(.failed, [.failJobs(reason: reason)])
        }
    }

    /// Whether the message ends now: not while it expands or has jobs, and only once.
    package static func settle(_ snapshot: Snapshot, jobsLeft: Bool) -> Transition {
        guard !snapshot.completed, !snapshot.state.isExpanding, !jobsLeft else { return Transition(snapshot.state) }
        let ended: State = snapshot.state == .queued ? .done : snapshot.state
        return Transition(ended, [.complete])
    }

    /// The first state of a new message: a notification waits for its expansion, a message
    /// queued with its audience starts queued.
    package static func created(_ kind: MessageKind) -> State {
        kind.expands ? .pending : .queued
    }
}

extension MessageLifecycle {
    /// `messages.expansion` of a new notification once its first page is written (`last` when
    /// that page held the whole audience): what `expansionPageWritten` does to a pending message.
    package static func expansion(afterFirstPage last: Bool) -> MessageExpansion {
        let pending = Snapshot(state: created(.notification), completed: false)
        guard let written = try? transition(pending, on: .expansionPageWritten(last: last)) else { return .pending }
        for case .endExpansion(let expansion) in written.actions { return expansion }
        return .pending
    }
}
