import Testing
import OpenPushCore

@Suite struct MessageLifecycleTests {
    typealias L = MessageLifecycle

    static func open(_ state: L.State) -> L.Snapshot { L.Snapshot(state: state, completed: false) }

    @Test func aNotificationStartsPendingAndALiveActivityQueued() {
        #expect(L.created(.notification) == .pending)
        #expect(L.created(.liveActivity) == .queued)
    }

    @Test func theRowsColumnsGiveTheState() {
        func state(_ expansion: MessageExpansion?, expanded: Bool = false, cancelled: Bool = false, failed: Bool = false,
                   completed: Bool = false) -> L.State {
            L.Snapshot(expansion: expansion, expandedAny: expanded, cancelled: cancelled, failed: failed, completed: completed).state
        }
        #expect(state(.pending) == .pending)
        #expect(state(.pending, expanded: true) == .expanding)
        // A pending expansion comes first: the message cannot end while it expands.
        #expect(state(.pending, expanded: true, cancelled: true, failed: true) == .expanding)
        #expect(state(.done) == .queued)
        #expect(state(nil) == .queued)
        #expect(state(.done, completed: true) == .done)
        #expect(state(nil, completed: true) == .done)
        #expect(state(.cancelled, cancelled: true) == .cancelled)
        #expect(state(.done, cancelled: true, completed: true) == .cancelled)
        #expect(state(.failed, failed: true) == .failed)
        #expect(state(nil, cancelled: true, failed: true) == .failed)
    }

    @Test func expansionPagesLeadToQueued() throws {
        for state in [L.State.pending, .expanding] {
            #expect(try L.transition(Self.open(state), on: .expansionPageWritten(last: false)) == L.Transition(.expanding))
            #expect(try L.transition(Self.open(state), on: .expansionPageWritten(last: true))
                    == L.Transition(.queued, [.endExpansion(.done)]))
        }
    }

    @Test func aFailedPageIsRetriedUntilItsLastTry() throws {
        for state in [L.State.pending, .expanding] {
            #expect(try L.transition(Self.open(state), on: .expansionFailed(reason: "x", final: false)) == L.Transition(state))
            #expect(try L.transition(Self.open(state), on: .expansionFailed(reason: "x", final: true))
                    == L.Transition(.failed, [.endExpansion(.failed), .recordExpansionFailure(reason: "x")]))
        }
    }

    @Test func expansionInputsAfterTheExpansionAreIllegal() {
        for state in [L.State.queued, .done, .cancelled, .failed] {
            for input in [L.Input.expansionPageWritten(last: true), .expansionPageWritten(last: false),
                          .expansionFailed(reason: "x", final: true), .expansionFailed(reason: "x", final: false)] {
                #expect(throws: L.IllegalTransition(snapshot: Self.open(state), input: input)) {
                    try L.transition(Self.open(state), on: input)
                }
            }
        }
    }

    @Test func jobsQueuedOnlyOnAQueuedMessage() throws {
        #expect(try L.transition(Self.open(.queued), on: .jobsQueued) == L.Transition(.queued))
        for state in [L.State.pending, .expanding, .done, .cancelled, .failed] {
            #expect(throws: L.IllegalTransition.self) { try L.transition(Self.open(state), on: .jobsQueued) }
        }
        #expect(throws: L.IllegalTransition.self) {
            try L.transition(L.Snapshot(state: .queued, completed: true), on: .jobsQueued)
        }
    }

    @Test func aFinishedJobChangesNoState() throws {
        for state in L.State.allCases {
            #expect(try L.transition(Self.open(state), on: .jobFinished) == L.Transition(state))
            // After the message ended too: settling it then does nothing.
            let over = L.Snapshot(state: state, completed: true)
            #expect(try L.transition(over, on: .jobFinished) == L.Transition(state))
        }
    }

    @Test func aCancelIsAlwaysAcceptedAndStopsAnExpansion() throws {
        #expect(try L.transition(Self.open(.pending), on: .cancelled)
                == L.Transition(.cancelled, [.endExpansion(.cancelled), .recordCancel]))
        #expect(try L.transition(Self.open(.expanding), on: .cancelled)
                == L.Transition(.cancelled, [.endExpansion(.cancelled), .recordCancel]))
        #expect(try L.transition(Self.open(.queued), on: .cancelled) == L.Transition(.cancelled, [.recordCancel]))
        #expect(try L.transition(Self.open(.cancelled), on: .cancelled) == L.Transition(.cancelled, [.recordCancel]))
        #expect(try L.transition(Self.open(.failed), on: .cancelled) == L.Transition(.failed, [.recordCancel]))
        // A message that is over is only marked cancelled: it does not end again.
        let done = L.Snapshot(state: .done, completed: true)
        #expect(try L.transition(done, on: .cancelled) == L.Transition(.cancelled, [.recordCancel]))
        #expect(L.settle(L.Snapshot(state: .cancelled, completed: true), jobsLeft: false) == L.Transition(.cancelled))
    }

    @Test func aFailureDropsEveryJob() throws {
        for state in L.State.allCases {
            for completed in [false, true] {
                #expect(try L.transition(L.Snapshot(state: state, completed: completed), on: .failed(reason: "r"))
                        == L.Transition(.failed, [.failJobs(reason: "r")]))
            }
        }
    }

    @Test func aMessageEndsOnceWhenNothingIsLeft() {
        #expect(L.settle(Self.open(.queued), jobsLeft: false) == L.Transition(.done, [.complete]))
        #expect(L.settle(Self.open(.cancelled), jobsLeft: false) == L.Transition(.cancelled, [.complete]))
        #expect(L.settle(Self.open(.failed), jobsLeft: false) == L.Transition(.failed, [.complete]))
        for state in L.State.allCases where state != .pending && state != .expanding {
            #expect(L.settle(Self.open(state), jobsLeft: true) == L.Transition(state))
            #expect(L.settle(L.Snapshot(state: state, completed: true), jobsLeft: false) == L.Transition(state))
        }
    }

    @Test func anExpandingMessageDoesNotEnd() {
        for state in [L.State.pending, .expanding] {
            #expect(L.settle(Self.open(state), jobsLeft: false) == L.Transition(state))
            #expect(L.settle(Self.open(state), jobsLeft: true) == L.Transition(state))
        }
    }

    @Test func theMessageKindsAreSpelledAsStored() {
        #expect(MessageKind.notification.rawValue == "notification")
        #expect(MessageKind.liveActivity.rawValue == "live_activity")
        #expect(MessageKind.notification.expands && !MessageKind.liveActivity.expands)
        #expect(MessageExpansion.allCases.map(\.rawValue) == ["pending", "done", "cancelled", "failed"])
    }
}
