import Foundation
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `delayed_option`, `delivery_time_of_day` and `throttle_rate_per_minute` end to end: the due
/// times of the jobs an expansion writes (read from the database, so nothing waits for hours),
/// what the simulator receives of the part that is due, and the view.
@Suite struct NotificationTimingTests {
    static func token(_ index: Int, prefix: String = "") -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", index + 1)
    }

    static func dbNow(_ harness: DeliveryHarness) async throws -> Double {
        try await harness.app.services.database.query("SELECT extract(epoch FROM now())::float8 AS now").firstRow().decode("now")
    }

    /// A device with its own `timezone` text and, through `external_id`, a user's `timezone_id`.
    static func device(_ harness: DeliveryHarness, appID: String, id: String, token: String, timezone: String? = nil,
                       userZone: String? = nil, lastSession: Double? = nil) async throws {
        let db = harness.app.services.database
        let externalID: String? = userZone.map { _ in "user-" + id }
        try await db.query("""
            INSERT INTO subscriptions (id, app_id, token, timezone, external_id, first_session_at, last_session_at)
            VALUES (\(id), \(appID), \(token), \(timezone), \(externalID), now(), COALESCE(to_timestamp(\(lastSession)), now()))
            """)
        if let userZone, let externalID {
            try await db.query("INSERT INTO users (id, app_id, timezone_id) VALUES (\("usr_" + id), \(appID), \(userZone))")
            try await db.query("""
                INSERT INTO user_aliases (app_id, user_id, label, value) VALUES (\(appID), \("usr_" + id), 'external_id', \(externalID))
                """)
        }
    }

    static func post(_ harness: DeliveryHarness, as created: CreatedApp? = nil, _ body: JSONObject) async -> TestResponse {
        let created = created ?? harness.created
        var object: JSONObject = ["app_id": .string(created.app.id), "contents": ["en": "Hello"]]
        for (name, value) in body { object[name] = value }
        return await harness.app.request(.post, "/notifications", headers: .restKey(created.restKey), json: .object(object))
    }

    static func view(_ harness: DeliveryHarness, _ id: String) async -> JSONObject {
        await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                  query: ["app_id": harness.created.app.id]).json?.objectValue ?? [:]
    }

    /// Each waiting recipient's due time, unix seconds.
    static func dues(_ harness: DeliveryHarness, _ messageID: String) async throws -> [String: Double] {
        let rows = try await harness.app.services.database.query("""
            SELECT r.subscription_id, extract(epoch FROM j.due_at)::float8 AS due
            FROM delivery_jobs j, unnest(j.subscription_ids) AS r(subscription_id) WHERE j.message_id = \(messageID)
            """)
        var dues: [String: Double] = [:]
        for row in rows { dues[try row.decode("subscription_id")] = try row.decode("due") }
        return dues
    }

    static func waitForDatabaseClock(_ harness: DeliveryHarness, toReach instant: Double) async throws {
        while try await dbNow(harness) < instant { try await Task.sleep(for: .milliseconds(100)) }
    }

    /// Pins the message's send time to `send`: on a loaded machine the `POST` may arrive after
    /// it, and the message would then count from its arrival instead. Nothing is expanded yet
    /// (no engine runs until the test drains), so this only undoes the lateness.
    static func pinSendTime(_ harness: DeliveryHarness, _ messageID: String, to send: Double) async throws {
        try await harness.app.services.database.query("""
            UPDATE messages SET send_after = to_timestamp(\(send)) WHERE id = \(messageID) AND expanded_through IS NULL
            """)
    }

    static func messageID(_ response: TestResponse) throws -> String {
        try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.status) \(response.text)")
    }

    /// `HH:MM:SS` of a unix time, UTC.
    static func clock(_ unix: Double) -> String {
        let seconds = Int(unix) % 86_400
        return String(format: "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    @Test func timezoneSendsEachDeviceAtTheTimeOfDayInItsOwnZone() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        // The message goes out at `send`; the time of day asked is send's own in UTC, so UTC
        // devices are due at once and every other zone later, by its offset.
        let send = (try await Self.dbNow(harness)).rounded(.down) + 2
        let devices: [(id: String, timezone: String?, userZone: String?, wait: Double)] = [
            ("sub_a", "0", nil, 0),
            ("sub_b", nil, nil, 0),                       // nothing known: UTC
            ("sub_c", "Not/AZone", nil, 0),               // not a zone PostgreSQL knows: UTC
            ("sub_d", "99999", nil, 0),                   // an offset beyond ±14 h: UTC
            ("sub_e", "-3600", nil, 3600),                // OneSignal's SDKs send the offset in seconds
            ("sub_f", "20700", nil, 86_400 - 20_700),     // +05:45
            ("sub_g", "Asia/Kathmandu", nil, 86_400 - 20_700),
            ("sub_h", "+19800", nil, 86_400 - 19_800),    // +05:30
            ("sub_i", nil, "Asia/Tokyo", 86_400 - 32_400),  // the user's timezone_id
            ("sub_j", "Not/AZone", "Asia/Tokyo", 86_400 - 32_400),
        ]
        for (index, device) in devices.enumerated() {
            try await Self.device(harness, appID: appID, id: device.id, token: Self.token(index), timezone: device.timezone,
                                  userZone: device.userZone)
        }
        let response = await Self.post(harness, [
            "include_subscription_ids": .array(devices.map { .string($0.id) }), "send_after": .double(send),
            "delayed_option": "timezone", "delivery_time_of_day": .string(Self.clock(send)),
        ])
        let id = try Self.messageID(response)
        try await Self.pinSendTime(harness, id, to: send)
        try await Self.waitForDatabaseClock(harness, toReach: send)
        try await harness.drain()

        let dueNow = devices.enumerated().filter { $0.element.wait == 0 }
        #expect(Set(harness.simulator.accepted().map(\.deviceToken)) == Set(dueNow.map { Self.token($0.offset) }))
        let dues = try await Self.dues(harness, id)
        #expect(Set(dues.keys) == Set(devices.filter { $0.wait > 0 }.map(\.id)))
        for device in devices where device.wait > 0 {
            #expect(dues[device.id].map { $0 - send } == device.wait, "\(device.id)")
        }
        let view = await Self.view(harness, id)
        #expect(view["successful"] == 4)
        #expect(view["remaining"] == 6)
        #expect(view["completed_at"] == .null)
        #expect(view["delayed_option"] == "timezone")
        #expect(view["delivery_time_of_day"] == .string(Self.clock(send)))
        #expect(view["throttle_rate_per_minute"] == .null)

        // Cancelled, the devices still waiting are never sent.
        #expect(await harness.app.request(.delete, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                          query: ["app_id": appID]).status == 200)
        let cancelled = await Self.view(harness, id)
        #expect(cancelled["remaining"] == 0 && cancelled["canceled"] == true)
    }

    @Test func lastActiveSendsAtTheTimeOfDayOfEachDevicesLastSession() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let send = (try await Self.dbNow(harness)).rounded(.down) + 2
        let day = 86_400.0
        let devices: [(id: String, lastSession: Double, wait: Double)] = [
            ("sub_a", send - day, 0),                    // yesterday at this time: at once
            ("sub_b", send - 3 * day + 59, 60),          // waits are whole minutes, rounded up
            ("sub_c", send - day + 7230, 7260),
            ("sub_d", send - 3600, day - 3600),          // an hour ago: tomorrow, an hour earlier than now
        ]
        for (index, device) in devices.enumerated() {
            try await Self.device(harness, appID: appID, id: device.id, token: Self.token(index), lastSession: device.lastSession)
        }
        let id = try Self.messageID(await Self.post(harness, [
            "include_subscription_ids": .array(devices.map { .string($0.id) }), "send_after": .double(send),
            "delayed_option": "last-active",
        ]))
        try await Self.pinSendTime(harness, id, to: send)
        try await Self.waitForDatabaseClock(harness, toReach: send)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Self.token(0)])
        let dues = try await Self.dues(harness, id)
        for device in devices.dropFirst() {
            #expect(dues[device.id].map { $0 - send } == device.wait, "\(device.id)")
        }
        let view = await Self.view(harness, id)
        #expect(view["remaining"] == 3)
        #expect(view["delayed_option"] == "last-active")
        #expect(view["delivery_time_of_day"] == .null)
    }

    @Test func aThrottledMessageIsPacedAcrossPagesAndRetriesWhileOthersGoAtOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        // The first device's first try fails with a 503, so it is retried.
        let paced = (0..<10).map { String(format: "sub_%02d", $0) }
        for (index, id) in paced.enumerated() {
            try await Self.device(harness, appID: appID, id: id, token: Self.token(index, prefix: index == 0 ? "5030" : ""))
        }
        let other = try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                                apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        for index in 0..<3 {
            try await Self.device(harness, appID: other.app.id, id: "sub_other_\(index)", token: Self.token(index, prefix: "0ee0"))
        }
        let throttled = try Self.messageID(await Self.post(harness, [
            "include_subscription_ids": .array(paced.map { .string($0) }), "throttle_rate_per_minute": 120,
        ]))
        // Three pages of four, as several workers would write them: the schedule carries on from
        // the previous page's next free slot, or from the page's own `now()` when a loaded machine
        // took longer between pages than the schedule did. Each page's `now()` is read in its
        // transaction so that the expected slots are exact either way.
        var pageStarts: [Double] = []
        for _ in 0..<3 {
            let (step, start) = try await harness.app.services.database.transaction { connection in
                let start: Double = try connection.query("SELECT extract(epoch FROM now())::float8 AS now")[0].decode("now")
                return (try NotificationExpansion.expandNextPage(pageSize: 4, in: connection), start)
            }
            guard case .expanded(throttled, _) = step else { Issue.record("unexpected step \(step)"); return }
            pageStarts.append(start)
        }
        // 120 a minute: two every second, each page's slots right after the previous page's.
        var expected: [String: Double] = [:]
        var nextFree = pageStarts[0]
        for (page, start) in pageStarts.enumerated() {
            let firstSlot = max(nextFree, start)
            let members = paced.dropFirst(page * 4).prefix(4)
            for (offset, id) in members.enumerated() { expected[id] = firstSlot + Double(offset / 2) }
            nextFree = firstSlot + Double((members.count + 1) / 2)
        }
        let dues = try await Self.dues(harness, throttled)
        let first = try #require(dues.values.min())
        for id in paced {
            let due = try #require(dues[id], "\(id)")
            #expect(abs(due - expected[id, default: 0]) < 0.001, "\(id): due \(due), expected \(expected[id, default: 0])")
        }
        let jobs = try await harness.app.services.database.query("""
            SELECT cardinality(subscription_ids) AS n FROM delivery_jobs WHERE message_id = \(throttled)
            """).map { try $0.decode("n", as: Int.self) }
        #expect(jobs == [2, 2, 2, 2, 2])

        // Sent after it: another app's message and an unthrottled one of the same app go at once.
        let unthrottled = try Self.messageID(await Self.post(harness, [
            "include_subscription_ids": .array(paced.suffix(2).map { .string($0) }),
        ]))
        _ = try Self.messageID(await Self.post(harness, as: other, ["included_segments": ["Subscribed Users"]]))
        try await harness.drain()
        let accepted = harness.simulator.accepted().map(\.deviceToken)
        #expect(Set((0..<3).map { Self.token($0, prefix: "0ee0") }).isSubset(of: Set(accepted)))
        #expect((await Self.view(harness, unthrottled))["successful"] == 2)

        // The 503 is retried in the message's next free slot, after the five it has (or later,
        // when a loaded machine took longer than the schedule): the rate holds.
        if let retried = try await Self.dues(harness, throttled)[paced[0]] {
            #expect(retried - first >= 5)
            let next: Double = try await harness.app.services.database.query("""
                SELECT extract(epoch FROM next_at)::float8 AS t FROM message_throttles WHERE message_id = \(throttled)
                """).firstRow().decode("t")
            #expect(next - retried == 1)
        } else {
            // The drain outlasted the slot on a loaded machine, so the retries already went, and
            // the simulator answers this token 503 every time: it ended as an error, not before its
            // slot.
            let records = try await harness.app.services.database.query("""
                SELECT extract(epoch FROM finished_at)::float8 AS at FROM deliveries
                WHERE message_id = \(throttled) AND subscription_id = \(paced[0]) AND state = 'error'
                """)
            // `#require`, not `[0]`: a missing record fails this test, not the whole test process.
            let retriedAt: Double = try #require(records.first).decode("at")
            #expect(retriedAt - first >= 5)
        }

        // Nothing of the throttled message went out before its slot.
        try await Self.waitForDatabaseClock(harness, toReach: first + 1.2)
        try await harness.drain()
        let sent = try await harness.app.services.database.query("""
            SELECT subscription_id, extract(epoch FROM finished_at)::float8 AS at FROM deliveries
            WHERE message_id = \(throttled) AND state = 'accepted'
            """)
        #expect(sent.count >= 3)
        for row in sent {
            let id: String = try row.decode("subscription_id")
            let due = try #require(expected[id], "\(id)")
            #expect(try row.decode("at", as: Double.self) >= due, "\(id)")
        }
        let recorded: Int = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM deliveries WHERE message_id = \(throttled)
            """).firstRow().decode("n")
        let view = await Self.view(harness, throttled)
        #expect(view["throttle_rate_per_minute"] == 120)
        #expect(view["delayed_option"] == .null)
        #expect(view["remaining"] == .int(Int64(10 - recorded)))
    }

    @Test func badTimingFieldsAreA400NamingThem() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.device(harness, appID: harness.created.app.id, id: "sub_a", token: Self.token(0))
        let response = await Self.post(harness, [
            "included_segments": ["Subscribed Users"], "delayed_option": "timezone", "delivery_time_of_day": "25:00",
            "throttle_rate_per_minute": -5,
        ])
        #expect(response.status == 400)
        #expect(response.json == ["errors": [.string(TimeOfDay.message),
                                             "throttle_rate_per_minute must be an integer from 0 to 2147483647"]])
        let conflict = await Self.post(harness, [
            "included_segments": ["Subscribed Users"], "delayed_option": "last-active", "throttle_rate_per_minute": 10,
        ])
        #expect(conflict.json == ["errors": [.string(NotificationScheduleParser.Messages.delayWithThrottle)]])
        let count: Int = try await harness.app.services.database.query("SELECT count(*)::int AS n FROM messages").firstRow().decode("n")
        #expect(count == 0)
    }
}
