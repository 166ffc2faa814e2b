import Foundation
import Testing
import APNs
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Quiet hours and muted threads end to end: devices set them through the routes, the engine
/// sends, and the simulator shows what each device actually received.
@Suite struct DeviceAttentionDeliveryTests {
    static func token(_ index: Int) -> String { String(format: "%064x", 0xa77e_0000 + index) }

    static func dbNow(_ harness: DeliveryHarness) async throws -> Double {
        try await harness.app.services.database.query("SELECT extract(epoch FROM now())::float8 AS now").firstRow().decode("now")
    }

    /// The whole-second UTC offset (within ±12 h) at which a device's clock reads `local`
    /// (seconds after midnight) at `now`.
    static func offset(toRead local: Double, at now: Double) -> Int {
        var offset = (local - now.truncatingRemainder(dividingBy: 86_400)).rounded()
        offset = offset.truncatingRemainder(dividingBy: 86_400)
        if offset >= 43_200 { offset -= 86_400 }
        if offset < -43_200 { offset += 86_400 }
        return Int(offset)
    }

    /// A device registered through `/v1` with the given preferences; returns its id.
    static func device(_ harness: DeliveryHarness, _ app: CreatedApp? = nil, token: String,
                       _ fields: JSONObject = [:]) async throws -> String {
        let app = app ?? harness.created
        var body: JSONObject = ["token": .string(token)]
        for (key, value) in fields { body[key] = value }
        let response = await harness.app.request(.post, "/v1/apps/\(app.app.id)/subscriptions", headers: .sdkKey(app.sdkKey),
                                                 json: .object(body))
        try #require(response.status == 201 || response.status == 200, "\(response.status) \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    /// Quiet from 11:00 to 13:00, on a clock that reads 12:00 now: quiet for about an hour more.
    static func quietNow(_ harness: DeliveryHarness) async throws -> JSONObject {
        let now = try await dbNow(harness)
        return ["quiet_hours": ["start": "11:00", "end": "13:00"],
                "timezone": .string(String(offset(toRead: 12 * 3600, at: now)))]
    }

    static func post(_ harness: DeliveryHarness, _ app: CreatedApp? = nil, to ids: [String], _ fields: JSONObject) async throws -> String {
        let app = app ?? harness.created
        var body: JSONObject = ["app_id": .string(app.app.id), "contents": ["en": "Goal!"], "ios_sound": "goal.caf",
                                "include_subscription_ids": .array(ids.map(JSONValue.string))]
        for (key, value) in fields { body[key] = value }
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: .object(body))
        return try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.status) \(response.text)")
    }

    static func view(_ harness: DeliveryHarness, _ id: String, app: CreatedApp? = nil) async -> JSONObject {
        let app = app ?? harness.created
        return await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(app.restKey),
                                         query: ["app_id": app.app.id]).json?.objectValue ?? [:]
    }

    static func aps(_ harness: DeliveryHarness, token: String) throws -> JSONObject {
        let pushes = harness.simulator.accepted().filter { $0.deviceToken == token }
        try #require(pushes.count == 1, "\(pushes.count) pushes to \(token)")
        return try #require(pushes[0].payloadJSON?.objectValue?["aps"]?.objectValue)
    }

    @Test func aDeviceInQuietHoursGetsAPassivePushWithoutSoundAndTheOthersTheUsualOne() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let now = try await Self.dbNow(harness)
        let quiet = try await Self.device(harness, token: Self.token(1), try await Self.quietNow(harness))
        // The same window, a clock that reads 14:00: not quiet.
        let awake = try await Self.device(harness, token: Self.token(2), [
            "quiet_hours": ["start": "11:00", "end": "13:00"],
            "timezone": .string(String(Self.offset(toRead: 14 * 3600, at: now)))])
        // An IANA zone (UTC): quiet from the minute before now to the one after it, wrapping midnight if need be.
        let minute = Int(now.truncatingRemainder(dividingBy: 86_400)) / 60
        let zoned = try await Self.device(harness, token: Self.token(3), [
            "timezone": "Etc/UTC",
            "quiet_hours": ["start": .string(QuietHoursWindow.text((minute + 1439) % 1440)),
                            "end": .string(QuietHoursWindow.text((minute + 2) % 1440))]])
        let plain = try await Self.device(harness, token: Self.token(4))
        let id = try await Self.post(harness, to: [quiet, awake, zoned, plain], ["ios_interruption_level": "active"])
        try await harness.drain()

        for token in [Self.token(1), Self.token(3)] {
            let aps = try Self.aps(harness, token: token)
            #expect(aps["interruption-level"] == "passive")
            #expect(aps["sound"] == nil)
            #expect(aps["alert"]?.objectValue?["body"] == "Goal!")
        }
        for token in [Self.token(2), Self.token(4)] {
            let aps = try Self.aps(harness, token: token)
            #expect(aps["interruption-level"] == "active")
            #expect(aps["sound"] == "goal.caf")
        }
        let view = await Self.view(harness, id)
        #expect(view["successful"] == 4)
        #expect(view["quiet_hours"] == "silence")
    }

    /// The user's IANA `timezone_id` wins over the device's offset `timezone` (which may be stale
    /// after a DST change); a device `timezone` naming an IANA zone wins over both.
    @Test func theUsersTimezoneIDWinsOverTheDevicesOffset() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let now = try await Self.dbNow(harness)
        let minute = Int(now.truncatingRemainder(dividingBy: 86_400)) / 60
        let aroundUTCNow: JSONValue = ["start": .string(QuietHoursWindow.text((minute + 1439) % 1440)),
                                       "end": .string(QuietHoursWindow.text((minute + 2) % 1440))]
        // The offset alone would put the device 12 hours away from UTC: outside the window.
        let offset = JSONValue.string(String(Self.offset(toRead: (now + 43_200).truncatingRemainder(dividingBy: 86_400), at: now)))
        let zoned = try await Self.device(harness, token: Self.token(1), ["timezone": offset, "external_id": "u-zone",
                                                                          "quiet_hours": aroundUTCNow])
        let offsetOnly = try await Self.device(harness, token: Self.token(2), ["timezone": offset, "quiet_hours": aroundUTCNow])
        try await harness.app.services.database.query("""
            UPDATE users SET timezone_id = 'Etc/UTC'
            WHERE id = (SELECT user_id FROM user_aliases WHERE app_id = \(harness.created.app.id) AND label = 'external_id'
                        AND value = 'u-zone')
            """)
        _ = try await Self.post(harness, to: [zoned, offsetOnly], [:])
        try await harness.drain()
        #expect(try Self.aps(harness, token: Self.token(1))["interruption-level"] == "passive")
        #expect(try Self.aps(harness, token: Self.token(2))["sound"] == "goal.caf")
        #expect(try Self.aps(harness, token: Self.token(2))["interruption-level"] == nil)
    }

    @Test func deferHoldsTheAlertUntilTheQuietHoursEndThenSendsItAsUsual() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let now = try await Self.dbNow(harness)
        // A clock ten minutes before 07:00 in a window 22:00–07:00: the post and the first drain
        // fall inside it however loaded the machine.
        let held = try await Self.device(harness, token: Self.token(1), [
            "quiet_hours": ["start": "22:00", "end": "07:00"],
            "timezone": .string(String(Self.offset(toRead: 7 * 3600 - 600, at: now)))])
        let plain = try await Self.device(harness, token: Self.token(2))
        let id = try await Self.post(harness, to: [held, plain], ["quiet_hours": "defer"])
        try await harness.drain()

        #expect(harness.simulator.accepted().map(\.deviceToken) == [Self.token(2)])
        var view = await Self.view(harness, id)
        #expect(view["remaining"] == 1)
        #expect(view["successful"] == 1)
        #expect(view["completed_at"] == .null)
        #expect(view["quiet_hours"] == "defer")
        let due: Double = try await harness.app.services.database.query("""
            SELECT extract(epoch FROM due_at)::float8 AS due FROM delivery_jobs WHERE message_id = \(id)
            """).firstRow().decode("due")
        // The instant the device's clock reads 07:00 (the offset is whole seconds, `now` is not).
        #expect(abs(due - (now + 600)) < 1.5)

        // The quiet hours end: rather than waiting ten minutes, the device's clock is put a minute
        // past 07:00 and the job made due, as the ten minutes would have.
        let later = try await Self.dbNow(harness)
        let pastSeven = String(Self.offset(toRead: 7 * 3600 + 60, at: later))
        try await harness.app.services.database.query("UPDATE subscriptions SET timezone = \(pastSeven) WHERE id = \(held)")
        try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now() WHERE message_id = \(id)")
        try await harness.drain()
        let aps = try Self.aps(harness, token: Self.token(1))
        #expect(aps["sound"] == "goal.caf")
        #expect(aps["interruption-level"] == nil)
        view = await Self.view(harness, id)
        #expect(view["remaining"] == 0)
        #expect(view["successful"] == 2)
        let attempts: Int = try await harness.app.services.database.query("""
            SELECT max(attempts)::int AS n FROM deliveries WHERE message_id = \(id)
            """).firstRow().decode("n")
        #expect(attempts == 1)
    }

    @Test func ignoreSendsAsUsualAndATimeSensitiveAlertIsNeverHeldOrSilenced() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let quiet = try await Self.device(harness, token: Self.token(1), try await Self.quietNow(harness))
        let ignored = try await Self.post(harness, to: [quiet], ["quiet_hours": "ignore"])
        try await harness.drain()
        var aps = try Self.aps(harness, token: Self.token(1))
        #expect(aps["sound"] == "goal.caf")
        #expect(aps["interruption-level"] == nil)
        #expect(await Self.view(harness, ignored)["quiet_hours"] == "ignore")

        for level in ["time_sensitive", "critical"] {
            harness.simulator.clearAccepted()
            let urgent = try await Self.post(harness, to: [quiet], ["quiet_hours": "defer", "ios_interruption_level": .string(level)])
            try await harness.drain()
            aps = try Self.aps(harness, token: Self.token(1))
            #expect(aps["sound"] == "goal.caf")
            #expect(aps["interruption-level"] == .string(level == "critical" ? "critical" : "time-sensitive"))
            #expect(await Self.view(harness, urgent)["remaining"] == 0)
        }
    }

    @Test func aMutedThreadIsNotSentAndCountedWhileADeviceWithoutTheMuteGetsIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let muting = try await Self.device(harness, token: Self.token(1))
        let other = try await Self.device(harness, token: Self.token(2))
        let patched = await harness.app.request(.patch, "/apps/\(harness.created.app.id)/subscriptions/\(muting)",
                                                headers: .restKey(harness.created.restKey),
                                                json: ["subscription": ["muted_threads": ["scores", "chat"]]])
        #expect(patched.status == 200)
        #expect(patched.json?.objectValue?["muted_threads"] == ["scores", "chat"])

        let id = try await Self.post(harness, to: [muting, other], ["thread_id": "scores"])
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Self.token(2)])
        let view = await Self.view(harness, id)
        #expect(view["successful"] == 1)
        #expect(view["remaining"] == 0)
        #expect(view["suppressed"]?.objectValue?["muted"] == 1)
        let record = try await harness.app.services.database.query("""
            SELECT state, error_reason FROM deliveries WHERE message_id = \(id) AND subscription_id = \(muting)
            """).firstRow()
        #expect(try record.decode("state", as: String.self) == "suppressed")
        #expect(try record.decode("error_reason", as: String?.self) == "muted")

        // Another thread, and no thread at all, still reach the muting device.
        harness.simulator.clearAccepted()
        _ = try await Self.post(harness, to: [muting], ["thread_id": "news"])
        _ = try await Self.post(harness, to: [muting], [:])
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Self.token(1), Self.token(1)])
    }

    @Test func oneAppsSubscriptionPreferencesNeverAffectAnotherApps() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                                apnsTeamID: "TEAM000001", apnsBundleID: "com.example.other"))
        // One phone, one token, in both apps: only the first app's device is quiet and mutes `scores`.
        let token = Self.token(1)
        var preferences = try await Self.quietNow(harness)
        preferences["muted_threads"] = ["scores"]
        let first = try await Self.device(harness, token: token, preferences)
        let second = try await Self.device(harness, other, token: token, ["timezone": preferences["timezone"] ?? .null])

        let muted = try await Self.post(harness, to: [first], ["thread_id": "scores"])
        let sent = try await Self.post(harness, other, to: [second], ["thread_id": "scores"])
        let silenced = try await Self.post(harness, to: [first], ["thread_id": "news"])
        let loud = try await Self.post(harness, other, to: [second], ["thread_id": "news"])
        try await harness.drain()

        let pushes = harness.simulator.accepted()
        let toOther = pushes.filter { $0.header("apns-topic") == "com.example.other" }
        let toFirst = pushes.filter { $0.header("apns-topic") == DeliveryHarness.bundleID }
        #expect(toOther.count == 2)
        for push in toOther {
            let aps = try #require(push.payloadJSON?.objectValue?["aps"]?.objectValue)
            #expect(aps["sound"] == "goal.caf")
            #expect(aps["interruption-level"] == nil)
        }
        #expect(toFirst.count == 1)
        let aps = try #require(toFirst.first?.payloadJSON?.objectValue?["aps"]?.objectValue)
        #expect(aps["thread-id"] == "news")
        #expect(aps["interruption-level"] == "passive")
        #expect(await Self.view(harness, muted)["suppressed"]?.objectValue?["muted"] == 1)
        #expect(await Self.view(harness, sent, app: other)["suppressed"]?.objectValue?["muted"] == 0)
        #expect(await Self.view(harness, silenced)["successful"] == 1)
        #expect(await Self.view(harness, loud, app: other)["successful"] == 1)
        let shown = await harness.app.request(.get, "/apps/\(other.app.id)/subscriptions/\(second)",
                                              headers: .restKey(other.restKey))
        #expect(shown.json?.objectValue?["quiet_hours"] == .null)
        #expect(shown.json?.objectValue?["muted_threads"] == [])
    }

    @Test func aBackgroundPushGoesAsUsualInQuietHoursAndAMutedThreadDoesNotStopIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        var preferences = try await Self.quietNow(harness)
        preferences["muted_threads"] = ["scores"]
        let quiet = try await Self.device(harness, token: Self.token(1), preferences)
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey), json: [
            "app_id": .string(harness.created.app.id), "content_available": true, "quiet_hours": "defer",
            "include_subscription_ids": [.string(quiet)], "data": ["sync": 1]])
        #expect(response.status == 200)
        try await harness.drain()
        let aps = try Self.aps(harness, token: Self.token(1))
        #expect(aps["content-available"] == 1)
    }

    @Test func aBadModeIsA400NamingTheField() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey), json: [
            "app_id": .string(harness.created.app.id), "contents": ["en": "x"], "included_segments": ["Subscribed Users"],
            "quiet_hours": "later"])
        #expect(response.status == 400)
        #expect(response.json == ["errors": ["quiet_hours must be one of: silence, defer, ignore"]])
    }

    /// The device's clock as `openpush_device_clock` reads it, on the day New York springs
    /// forward (2026-03-08, 02:00 EST → 03:00 EDT): at 23:00 EST the evening before, 07:00 is
    /// 7 real hours away, not 8; and at a fixed offset, plain arithmetic.
    @Test func theDeviceClockAccountsForADSTChange() async throws {
        let pool = try await TestApp.make().services.database
        let base = 1_772_942_400.0  // 2026-03-08T04:00:00Z
        let zoned = try await pool.query("""
            SELECT local_seconds, extract(epoch FROM end_at)::float8 AS end_at
            FROM openpush_device_clock(to_timestamp(\(base)), 'America/New_York', 0, 7 * 3600.0)
            """).firstRow()
        #expect(try zoned.decode("local_seconds", as: Double.self) == 23 * 3600)
        #expect(try zoned.decode("end_at", as: Double.self) == base + 7 * 3600)
        let fixed = try await pool.query("""
            SELECT local_seconds, extract(epoch FROM end_at)::float8 AS end_at
            FROM openpush_device_clock(to_timestamp(\(base)), NULL, -18000, 7 * 3600.0)
            """).firstRow()
        #expect(try fixed.decode("local_seconds", as: Double.self) == 23 * 3600)
        #expect(try fixed.decode("end_at", as: Double.self) == base + 8 * 3600)
    }
}
