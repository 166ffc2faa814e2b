import Testing
import OpenPushCore

/// `delayed_option`, `delivery_time_of_day` and `throttle_rate_per_minute`: the time-of-day
/// forms OneSignal documents, OneSignal's rules between the fields, and the throttle's pace.
@Suite struct NotificationScheduleTests {
    static func parse(_ fields: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var body: JSONObject = ["contents": ["en": "x"], "included_segments": ["Subscribed Users"]]
        for (name, value) in fields { body[name] = value }
        return NotificationSendParser.parse(body)
    }

    static func problems(_ fields: JSONObject) -> [String] {
        guard case .failure(let error) = parse(fields) else { return [] }
        return error.messages
    }

    @Test(arguments: [
        ("9:00AM", 9 * 3600), ("9:00 AM", 9 * 3600), ("9:00am", 9 * 3600), ("09:00 a.m", nil),
        ("21:45", 21 * 3600 + 45 * 60), ("9:45:30", 9 * 3600 + 45 * 60 + 30), ("09:05", 9 * 3600 + 300),
        ("12:00AM", 0), ("12:30 am", 1800), ("12:00PM", 12 * 3600), ("11:59:59 PM", 86_399), ("0:00", 0),
        ("23:59", 86_340), (" 7:15 pm ", 19 * 3600 + 900),
        ("24:00", nil), ("13:00PM", nil), ("0:30AM", nil), ("9:5", nil), ("9:60", nil), ("9:00:60", nil),
        ("9", nil), ("9AM", nil), ("9:00 XM", nil), ("9:00AM tomorrow", nil), ("", nil), ("-1:00", nil),
        ("9:00:00.5", nil),
    ] as [(String, Int?)])
    func timeOfDay(text: String, seconds: Int?) {
        #expect(TimeOfDay.secondsAfterMidnight(text) == seconds)
    }

    @Test func timezoneTakesATimeOfDayAndLastActiveNone() throws {
        #expect(try Self.parse(["delayed_option": "timezone", "delivery_time_of_day": "9:00AM"]).get().schedule
                == NotificationSchedule(delay: .localTime(secondsAfterMidnight: 9 * 3600)))
        #expect(try Self.parse(["delayed_option": "last-active"]).get().schedule == NotificationSchedule(delay: .lastActive))
        #expect(try Self.parse([:]).get().schedule == .immediate)
        #expect(try Self.parse(["delayed_option": .null, "delivery_time_of_day": .null]).get().schedule == .immediate)
    }

    @Test func badDelayFieldsAreNamed() {
        typealias M = NotificationScheduleParser.Messages
        #expect(Self.problems(["delayed_option": "send_after"]) == [M.delayedOption])
        #expect(Self.problems(["delayed_option": "Timezone", "delivery_time_of_day": "9:00AM"]) == [M.delayedOption])
        #expect(Self.problems(["delayed_option": 1]) == ["delayed_option must be a string, got number"])
        #expect(Self.problems(["delayed_option": "timezone"]) == [M.timeOfDayRequired])
        #expect(Self.problems(["delayed_option": "timezone", "delivery_time_of_day": "9 o'clock"]) == [TimeOfDay.message])
        #expect(Self.problems(["delivery_time_of_day": "9:00AM"]) == [M.timeOfDayWithoutTimezone])
        #expect(Self.problems(["delayed_option": "last-active", "delivery_time_of_day": "9:00AM"]) == [M.timeOfDayWithoutTimezone])
        #expect(Self.problems(["delivery_time_of_day": 900]) == ["delivery_time_of_day must be a string, got number"])
    }

    @Test func throttleRateIsANonNegativeIntegerAndZeroMeansNone() throws {
        #expect(try Self.parse(["throttle_rate_per_minute": 120]).get().schedule == NotificationSchedule(throttleRatePerMinute: 120))
        #expect(try Self.parse(["throttle_rate_per_minute": 0]).get().schedule == .immediate)
        let range = "throttle_rate_per_minute must be an integer from 0 to 2147483647"
        #expect(Self.problems(["throttle_rate_per_minute": -1]) == [range])
        #expect(Self.problems(["throttle_rate_per_minute": 1.5]) == [range])
        #expect(Self.problems(["throttle_rate_per_minute": "120"]) == [range])
        #expect(Self.problems(["throttle_rate_per_minute": 2_147_483_648]) == [range])
    }

    @Test func aDelayCannotGoWithAThrottleAboveZero() throws {
        #expect(Self.problems(["delayed_option": "last-active", "throttle_rate_per_minute": 60])
                == [NotificationScheduleParser.Messages.delayWithThrottle])
        #expect(try Self.parse(["delayed_option": "last-active", "throttle_rate_per_minute": 0]).get().schedule
                == NotificationSchedule(delay: .lastActive))
    }

    @Test(arguments: [
        // rate, audience → recipients per slot, seconds between slots
        (120, 10, 2, 1.0), (60, 10, 1, 1.0), (10, 10, 1, 6.0), (1, 1, 1, 60.0), (1019, 10, 16, 60.0 / 63),
        (119, 10, 1, 60.0 / 119), (6000, 10, 100, 1.0),
        // OneSignal's 24-hour rule: 10 a minute for 20,000 devices is raised to 14 (20,000 / 1440, rounded up)
        (10, 20_000, 1, 60.0 / 14), (60, 1_440 * 60, 1, 1.0), (60, 1_440 * 60 + 1, 1, 60.0 / 61),
    ] as [(Int, Int, Int, Double)])
    func throttlePace(rate: Int, audience: Int, perSlot: Int, seconds: Double) {
        let pace = ThrottlePace(requestedRatePerMinute: rate, audience: audience)
        #expect(pace.recipientsPerSlot == perSlot)
        #expect(abs(pace.slotSeconds - seconds) < 1e-9)
        #expect(pace.ratePerMinute <= Double(max(rate, (audience + 1439) / 1440)) + 1e-6)
        #expect(ThrottlePace(recipientsPerSlot: pace.recipientsPerSlot, slotSeconds: pace.slotSeconds) == pace)
    }

    @Test func noMinuteOfAPacedMessageHoldsMoreThanItsRate() {
        for rate in [1, 7, 59, 60, 61, 119, 120, 1019, 5000, 100_000] {
            let pace = ThrottlePace(requestedRatePerMinute: rate, audience: 0)
            // Three minutes' worth of recipients: every 60-second window starting at a due time
            // (the fullest windows start at one) holds at most `rate`, and at least 95% of it.
            let offsets = (0..<(rate * 3)).map { pace.offset(ofRecipient: $0) }
            var end = 0
            for (start, offset) in offsets.enumerated() {
                while end < offsets.count, offsets[end] < offset + 60 - 1e-6 { end += 1 }
                #expect(end - start <= rate, "rate \(rate)")
                if offset + 60 <= offsets.last! { #expect(Double(end - start) >= 0.95 * Double(rate), "rate \(rate)") }
            }
        }
        let pace = ThrottlePace(requestedRatePerMinute: 120, audience: 10)
        #expect((0..<10).map { pace.offset(ofRecipient: $0) } == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
        #expect(pace.slots(for: 10) == 5)
        #expect(pace.slots(for: 0) == 0)
    }

    /// A job of a delayed or throttled message is sent at its own due time, hours after the
    /// message's `send_after`: its `ttl` counts from that due time (the job's `createdAt`).
    @Test(arguments: [true, false])
    func aScheduledPushLivesItsTTLFromItsOwnDueTime(scheduled: Bool) throws {
        let sendAfter = 1_800_000_000.0
        let due = sendAfter + 5 * 3600
        var fields: JSONObject = ["ttl": 600]
        if scheduled { fields["delayed_option"] = "last-active" }
        let send = try Self.parse(fields).get()
        var context = DeliveryContext()
        context.add(DeliveryContext.App(id: "app_a", bundleID: "com.example.app"))
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "aa"))
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: sendAfter))
        let delivery = ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: "app_a",
                                       subscriptionID: "sub_1", liveActivityID: nil, tokenKind: .device, token: "aa", badge: nil,
                                       attempts: 1, createdAt: due)
        let result = DeliveryPlanner.plan(delivery, context: context, now: due + 1)
        if scheduled {
            #expect(try result.get().request.headers.expiration == Int(due) + 600)
        } else {
            guard case .failure(let refusal) = result else { Issue.record("an immediate message's ttl counts from send_after"); return }
            #expect(refusal == .permanent("Expired"))
        }
    }
}
