import Testing
import OpenPushCore

/// The interval rules as pure decisions, with a manual clock: Live Activity update coalescing
/// and the widget push throttle. Each test plays the server's part — it keeps the slot a
/// decision claims and passes it to the next one.
@Suite struct PushIntervalPolicyTests {
    /// A clock that moves only when the test says so.
    struct Clock {
        var now = 1_800_000_000.0
        mutating func advance(_ seconds: Double) { now += seconds }
    }

    static func update(_ timestamp: Int64, _ message: String) -> PushRank { PushRank(order: timestamp, messageID: message) }

    // MARK: Live Activity coalescing

    @Test func offSendsEveryUpdateAndClaimsNothing() {
        let activity = LiveActivityCoalescing.Activity(slot: PushSlot(claimedAt: 1_800_000_000, holder: Self.update(9, "m9")),
                                                       newestPending: Self.update(20, "m20"), end: Self.update(30, "end"))
        let decision = LiveActivityCoalescing.decide(update: Self.update(10, "m10"), attempts: 1, intervalSeconds: 0,
                                                     activity: activity, now: 1_800_000_001)
        #expect(decision == .send(claim: nil))
        #expect(LiveActivityCoalescing.refusal(decision) == nil)
    }

    @Test func theFirstUpdateGoesAtOnceAndClaimsTheInterval() {
        let clock = Clock()
        let decision = LiveActivityCoalescing.decide(update: Self.update(10, "m1"), attempts: 1, intervalSeconds: 5,
                                                     activity: .init(newestPending: Self.update(10, "m1")), now: clock.now)
        #expect(decision == .send(claim: PushSlot(claimedAt: clock.now, holder: Self.update(10, "m1"))))
    }

    @Test func anUpdateWithinTheIntervalWaitsUntilItEnds() {
        var clock = Clock()
        let slot = PushSlot(claimedAt: clock.now, holder: Self.update(10, "m1"))
        clock.advance(2)
        let decision = LiveActivityCoalescing.decide(update: Self.update(11, "m2"), attempts: 1, intervalSeconds: 5,
                                                     activity: .init(slot: slot, newestPending: Self.update(11, "m2")), now: clock.now)
        #expect(decision == .wait(until: slot.claimedAt + 5))
        #expect(LiveActivityCoalescing.refusal(decision) == .deferred(until: slot.claimedAt + 5))
    }

    /// Ticks m2, m3, m4 come within the interval; when it ends only m4 goes, and m2 and m3 are
    /// coalesced into it — whichever of them a worker plans first.
    @Test(arguments: [["m2", "m3", "m4"], ["m4", "m2", "m3"], ["m3", "m4", "m2"]])
    func whenTheIntervalEndsOnlyTheNewestWaitingUpdateGoes(order: [String]) {
        var clock = Clock()
        var slot: PushSlot? = PushSlot(claimedAt: clock.now, holder: Self.update(10, "m1"))
        let ranks = ["m2": Self.update(11, "m2"), "m3": Self.update(12, "m3"), "m4": Self.update(13, "m4")]
        let newest = Self.update(13, "m4")
        clock.advance(1)
        for name in ["m2", "m3", "m4"] {
            let decision = LiveActivityCoalescing.decide(update: ranks[name]!, attempts: 1, intervalSeconds: 5,
                                                         activity: .init(slot: slot, newestPending: newest), now: clock.now)
            #expect(decision == .wait(until: 1_800_000_005))
        }
        clock.advance(4)
        var sent: [String] = []
        var carried: [String: String] = [:]
        for name in order {
            let decision = LiveActivityCoalescing.decide(update: ranks[name]!, attempts: 1, intervalSeconds: 5,
                                                         activity: .init(slot: slot, newestPending: newest), now: clock.now)
            switch decision {
            case .send(let claim):
                sent.append(name)
                if let claim { slot = claim }
            case .folded(let carrier, let claim):
                carried[name] = carrier
                if let claim { slot = claim }
                #expect(LiveActivityCoalescing.refusal(decision) == .suppressed(.coalesced, carriedBy: carrier))
            default:
                Issue.record("\(name): \(decision)")
            }
        }
        #expect(sent == ["m4"])
        #expect(carried == ["m2": "m4", "m3": "m4"])
        #expect(slot == PushSlot(claimedAt: clock.now, holder: newest))
    }

    @Test func anUpdateOlderThanOneThatWentIsCoalescedIntoIt() {
        let slot = PushSlot(claimedAt: 1_800_000_000, holder: Self.update(13, "m4"))
        // Long after the interval: the slot's push carried a newer state all the same.
        let decision = LiveActivityCoalescing.decide(update: Self.update(12, "m3"), attempts: 1, intervalSeconds: 5,
                                                     activity: .init(slot: slot), now: 1_800_000_100)
        #expect(decision == .folded(carriedBy: "m4", claim: nil))
    }

    @Test func anOlderRetryAfterANewerUpdateHeldTheSlotIsSuperseded() {
        let slot = PushSlot(claimedAt: 1_800_000_000, holder: Self.update(13, "m4"))
        let decision = LiveActivityCoalescing.decide(update: Self.update(12, "m3"), attempts: 2, intervalSeconds: 5,
                                                     activity: .init(slot: slot), now: 1_800_000_001)
        #expect(decision == .superseded)
        #expect(LiveActivityCoalescing.refusal(decision) == .superseded)
    }

    @Test func theSlotsHolderGoesEvenWithinTheInterval() {
        // Claimed for it by a worker that folded an older update into it, or its own retry.
        let slot = PushSlot(claimedAt: 1_800_000_000, holder: Self.update(13, "m4"))
        for attempts in [1, 2] {
            let decision = LiveActivityCoalescing.decide(update: Self.update(13, "m4"), attempts: attempts, intervalSeconds: 5,
                                                         activity: .init(slot: slot, newestPending: Self.update(13, "m4")),
                                                         now: 1_800_000_001)
            #expect(decision == .send(claim: nil))
        }
    }

    @Test func aRetryOfTheSlotsHolderHandsTheSlotToANewerWaitingUpdate() {
        // Its first attempt failed; a newer update came meanwhile: that one goes instead.
        let slot = PushSlot(claimedAt: 1_800_000_000, holder: Self.update(10, "m1"))
        let decision = LiveActivityCoalescing.decide(update: Self.update(10, "m1"), attempts: 2, intervalSeconds: 5,
                                                     activity: .init(slot: slot, newestPending: Self.update(11, "m2")),
                                                     now: 1_800_000_003)
        #expect(decision == .folded(carriedBy: "m2", claim: PushSlot(claimedAt: 1_800_000_003, holder: Self.update(11, "m2"))))
        #expect(LiveActivityCoalescing.decide(update: Self.update(11, "m2"), attempts: 1, intervalSeconds: 5,
                                              activity: .init(slot: decision.claim, newestPending: Self.update(11, "m2")),
                                              now: 1_800_000_003) == .send(claim: nil))
    }

    @Test func anUpdateAfterTheIntervalGoesAtOnce() {
        var clock = Clock()
        let slot = PushSlot(claimedAt: clock.now, holder: Self.update(10, "m1"))
        clock.advance(5)
        let decision = LiveActivityCoalescing.decide(update: Self.update(11, "m2"), attempts: 1, intervalSeconds: 5,
                                                     activity: .init(slot: slot, newestPending: Self.update(11, "m2")), now: clock.now)
        #expect(decision == .send(claim: PushSlot(claimedAt: clock.now, holder: Self.update(11, "m2"))))
    }

    @Test func anEndDropsTheUpdatesWaitingBeforeIt() {
        let slot = PushSlot(claimedAt: 1_800_000_000, holder: Self.update(10, "m1"))
        let end = Self.update(14, "end")
        for (update, attempts) in [(Self.update(12, "m3"), 1), (Self.update(13, "m4"), 1), (Self.update(11, "m2"), 2)] {
            let decision = LiveActivityCoalescing.decide(update: update, attempts: attempts, intervalSeconds: 5,
                                                         activity: .init(slot: slot, newestPending: Self.update(13, "m4"), end: end),
                                                         now: 1_800_000_010)
            #expect(decision == .folded(carriedBy: "end", claim: nil))
            #expect(LiveActivityCoalescing.refusal(decision) == .suppressed(.coalesced, carriedBy: "end"))
        }
        // Even the slot's own holder, if it had not gone yet: the end carries the final state.
        let holder = LiveActivityCoalescing.decide(update: Self.update(10, "m1"), attempts: 1, intervalSeconds: 5,
                                                   activity: .init(slot: slot, end: end), now: 1_800_000_001)
        #expect(holder == .folded(carriedBy: "end", claim: nil))
    }

    @Test func twoDevicesHoldingOneActivityIdAreIndependent() {
        // Each device's activity row has its own slot: one busy does not hold the other.
        var clock = Clock()
        let busy = LiveActivityCoalescing.Activity(slot: PushSlot(claimedAt: clock.now, holder: Self.update(10, "m1")))
        let idle = LiveActivityCoalescing.Activity()
        clock.advance(1)
        let update = Self.update(11, "m2")
        #expect(LiveActivityCoalescing.decide(update: update, attempts: 1, intervalSeconds: 5, activity: busy, now: clock.now)
                == .wait(until: clock.now + 4))
        #expect(LiveActivityCoalescing.decide(update: update, attempts: 1, intervalSeconds: 5, activity: idle, now: clock.now)
                == .send(claim: PushSlot(claimedAt: clock.now, holder: update)))
    }

    // MARK: widget throttle

    @Test func widgetThrottleOffSendsEveryReload() {
        let slot = PushSlot(claimedAt: 1_800_000_000, holder: Self.update(10, "w1"))
        #expect(WidgetThrottle.decide(reload: Self.update(11, "w2"), intervalSeconds: 0, slot: slot, newestPending: nil,
                                      now: 1_800_000_001) == .send(claim: nil))
    }

    @Test func aWidgetReloadGoesAtOnceThenOneTrailingPushPerInterval() {
        var clock = Clock()
        var slot: PushSlot?
        let w1 = Self.update(1, "w1"), w2 = Self.update(2, "w2"), w3 = Self.update(3, "w3")
        // First push: at once.
        let first = WidgetThrottle.decide(reload: w1, intervalSeconds: 15, slot: slot, newestPending: w1, now: clock.now)
        #expect(first == .send(claim: PushSlot(claimedAt: clock.now, holder: w1)))
        slot = first.claim
        // Two more within the interval: both wait for its end.
        clock.advance(3)
        for reload in [w2, w3] {
            let decision = WidgetThrottle.decide(reload: reload, intervalSeconds: 15, slot: slot, newestPending: w3, now: clock.now)
            #expect(decision == .wait(until: 1_800_000_015))
            #expect(WidgetThrottle.refusal(decision) == .deferred(until: 1_800_000_015))
        }
        // At the end: the newest is the trailing push, the other is throttled, carried by it.
        clock.advance(12)
        let older = WidgetThrottle.decide(reload: w2, intervalSeconds: 15, slot: slot, newestPending: w3, now: clock.now)
        #expect(older == .folded(carriedBy: "w3", claim: PushSlot(claimedAt: clock.now, holder: w3)))
        #expect(WidgetThrottle.refusal(older) == .suppressed(.throttled, carriedBy: "w3"))
        slot = older.claim
        #expect(WidgetThrottle.decide(reload: w3, intervalSeconds: 15, slot: slot, newestPending: w3, now: clock.now)
                == .send(claim: nil))
        // The trailing push started a new interval.
        clock.advance(1)
        let w4 = Self.update(4, "w4")
        #expect(WidgetThrottle.decide(reload: w4, intervalSeconds: 15, slot: slot, newestPending: w4, now: clock.now)
                == .wait(until: clock.now + 14))
    }

    @Test func twoDevicesWidgetsAreIndependent() {
        let busy = PushSlot(claimedAt: 1_800_000_000, holder: Self.update(1, "w1"))
        let w2 = Self.update(2, "w2")
        #expect(WidgetThrottle.decide(reload: w2, intervalSeconds: 15, slot: busy, newestPending: w2, now: 1_800_000_001)
                == .wait(until: 1_800_000_015))
        #expect(WidgetThrottle.decide(reload: w2, intervalSeconds: 15, slot: nil, newestPending: w2, now: 1_800_000_001)
                == .send(claim: PushSlot(claimedAt: 1_800_000_001, holder: w2)))
    }
}

extension PushIntervalDecision {
    var claim: PushSlot? {
        switch self {
        case .send(let claim), .folded(_, let claim): claim
        case .wait, .superseded: nil
        }
    }
}
