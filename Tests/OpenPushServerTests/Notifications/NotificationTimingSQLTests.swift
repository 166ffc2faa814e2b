import Testing
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Migration 0020's time functions against PostgreSQL's time zone database: a local time of day
/// in a fixed offset or an IANA zone, across DST changes, and the throttle's slot reservation.
/// Expected instants are worked out by hand, in UTC.
@Suite struct NotificationTimingSQLTests {
    static func instant(_ sql: PostgresQuery, in app: TestApp) async throws -> String? {
        try await app.services.database.query("""
            SELECT to_char((\(sql)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
            """).firstRow().decode("at")
    }

    static func nextLocal(_ base: String, _ timeOfDay: String, _ zone: String, in app: TestApp) async throws -> String? {
        let seconds = Double(try #require(TimeOfDay.secondsAfterMidnight(timeOfDay)))
        return try await instant("openpush_next_local_time(\(base)::timestamptz, \(seconds)::float8, \(zone)::text)", in: app)
    }

    static func nextOffset(_ base: String, _ timeOfDay: String, _ offset: Int, in app: TestApp) async throws -> String? {
        let seconds = Double(try #require(TimeOfDay.secondsAfterMidnight(timeOfDay)))
        return try await instant("openpush_next_offset_time(\(base)::timestamptz, \(seconds)::float8, \(offset)::int)", in: app)
    }

    @Test func fixedOffsetsIncludingQuarterHoursAndTheExactMoment() async throws {
        let app = try await TestApp.make()
        // +05:45 (Nepal, as OneSignal's SDK sends it: 20700 seconds): 09:00 there is 03:15Z.
        #expect(try await Self.nextOffset("2026-06-01T00:00:00Z", "9:00AM", 20_700, in: app) == "2026-06-01T03:15:00.000000Z")
        #expect(try await Self.nextOffset("2026-06-01T03:15:00Z", "9:00AM", 20_700, in: app) == "2026-06-01T03:15:00.000000Z")
        #expect(try await Self.nextOffset("2026-06-01T03:15:00.5Z", "9:00AM", 20_700, in: app) == "2026-06-02T03:15:00.000000Z")
        // -08:00 (-28800): 04:00 local at 12:00Z; 9:00 local is 17:00Z the same day.
        #expect(try await Self.nextOffset("2026-06-01T12:00:00Z", "9:00 AM", -28_800, in: app) == "2026-06-01T17:00:00.000000Z")
        // +14:00 and -12:00, the extremes; across a year's end.
        #expect(try await Self.nextOffset("2026-12-31T11:00:00Z", "0:30", 50_400, in: app) == "2027-01-01T10:30:00.000000Z")
        #expect(try await Self.nextOffset("2026-12-31T23:00:00Z", "21:45", -43_200, in: app) == "2027-01-01T09:45:00.000000Z")
        #expect(try await Self.nextOffset("2026-12-31T23:00:00Z", "11:59:59 PM", 0, in: app) == "2026-12-31T23:59:59.000000Z")
    }

    @Test func ianaZonesAcrossDaylightSavingChanges() async throws {
        let app = try await TestApp.make()
        // New York springs forward at 2026-03-08 02:00 EST (07:00Z) to 03:00 EDT.
        #expect(try await Self.nextLocal("2026-03-08T06:00:00Z", "2:30AM", "America/New_York", in: app)
                == "2026-03-08T07:30:00.000000Z")  // skipped: sent when the clocks jump past it (03:30 EDT)
        #expect(try await Self.nextLocal("2026-03-07T07:45:00Z", "2:30AM", "America/New_York", in: app)
                == "2026-03-08T07:30:00.000000Z")
        #expect(try await Self.nextLocal("2026-03-08T06:00:00Z", "9:00AM", "America/New_York", in: app)
                == "2026-03-08T13:00:00.000000Z")  // 09:00 EDT, not EST
        #expect(try await Self.nextLocal("2026-03-07T15:00:00Z", "9:00AM", "America/New_York", in: app)
                == "2026-03-08T13:00:00.000000Z")  // 22 hours later: that day is an hour short
        // New York falls back at 2026-11-01 02:00 EDT (06:00Z) to 01:00 EST: 01:30 happens twice.
        #expect(try await Self.nextLocal("2026-11-01T04:00:00Z", "1:30AM", "America/New_York", in: app)
                == "2026-11-01T05:30:00.000000Z")  // the first 01:30 (EDT)
        #expect(try await Self.nextLocal("2026-11-01T05:40:00Z", "1:30AM", "America/New_York", in: app)
                == "2026-11-01T06:30:00.000000Z")  // after the first, the second (EST), not tomorrow
        #expect(try await Self.nextLocal("2026-10-31T05:40:00Z", "1:30AM", "America/New_York", in: app)
                == "2026-11-01T05:30:00.000000Z")  // within 24 h: the first one
        // Southern hemisphere (Sydney springs forward 2026-10-04 02:00 AEST to 03:00 AEDT), a
        // quarter-hour zone and a zone without DST.
        #expect(try await Self.nextLocal("2026-10-03T14:00:00Z", "9:00AM", "Australia/Sydney", in: app)
                == "2026-10-03T22:00:00.000000Z")  // 09:00 AEDT (+11)
        #expect(try await Self.nextLocal("2026-06-01T00:00:00Z", "9:00AM", "Asia/Kathmandu", in: app)
                == "2026-06-01T03:15:00.000000Z")
        #expect(try await Self.nextLocal("2026-06-01T03:15:00Z", "9:00AM", "Asia/Kathmandu", in: app)
                == "2026-06-01T03:15:00.000000Z")
        #expect(try await Self.nextLocal("2026-06-01T03:16:00Z", "9:00AM", "Asia/Tokyo", in: app)
                == "2026-06-02T00:00:00.000000Z")
    }

    @Test func throttleSlotsAreReservedOneAfterAnother() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let db = app.services.database
        for id in ["msg_paced", "msg_free"] {
            try await db.query("INSERT INTO messages (id, app_id, kind) VALUES (\(id), \(appID), 'notification')")
        }
        try await db.query("""
            INSERT INTO message_throttles (message_id, slot_size, slot_seconds, next_at)
            VALUES ('msg_paced', 1, 0.5, '2026-06-01T00:00:10Z')
            """)
        func reserve(_ id: String, _ earliest: String, _ slots: Int) async throws -> String? {
            try await Self.instant("openpush_throttle_reserve(\(id), \(earliest)::timestamptz, \(slots)::int)", in: app)
        }
        #expect(try await reserve("msg_paced", "2026-06-01T00:00:00Z", 4) == "2026-06-01T00:00:10.000000Z")
        #expect(try await reserve("msg_paced", "2026-06-01T00:00:00Z", 1) == "2026-06-01T00:00:12.000000Z")
        // A schedule that fell behind starts again from `earliest`: no burst to catch up.
        #expect(try await reserve("msg_paced", "2026-06-01T00:01:00Z", 2) == "2026-06-01T00:01:00.000000Z")
        #expect(try await Self.instant("SELECT next_at FROM message_throttles WHERE message_id = 'msg_paced'", in: app)
                == "2026-06-01T00:01:01.000000Z")
        #expect(try await reserve("msg_free", "2026-06-01T00:00:00Z", 3) == nil)
    }

    /// Two workers completing jobs of one throttled message at once, each holding the message row
    /// locked (as `DeliveryQueue.complete` does) and then taking a retry slot: both get
    /// one, neither deadlocks.
    @Test func concurrentCompletionsTakeRetrySlotsWithoutDeadlock() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let db = app.services.database
        try await db.query("INSERT INTO messages (id, app_id, kind) VALUES ('msg_paced', \(appID), 'notification')")
        try await db.query("""
            INSERT INTO message_throttles (message_id, slot_size, slot_seconds, next_at)
            VALUES ('msg_paced', 1, 1, '2026-06-01T00:00:00Z')
            """)
        async let first = Self.completion(db)
        async let second = Self.completion(db)
        let slots = try await [first, second].sorted()
        #expect(slots[1] - slots[0] == 1)
    }

    /// Two completions of one message's jobs, both with recipients to retry: each checks for a
    /// cancel, then adds its records to the message's counts. They take turns on the row; before,
    /// each held it `FOR SHARE` while waiting for the other's to go, and PostgreSQL aborted one.
    @Test func concurrentCompletionsWithRetriesAddTheirCountsWithoutDeadlock() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let db = app.services.database
        try await db.query("INSERT INTO messages (id, app_id, kind) VALUES ('msg_retrying', \(appID), 'notification')")
        @Sendable func complete() async throws {
            try await db.transaction { connection in
                #expect(try DeliveryQueue.isCancelled("msg_retrying", in: connection) == false)
                try connection.query("SELECT pg_sleep(0.3)")
                try DeliveryCounts.add([("msg_retrying", DeliveryTally([(state: .accepted, reason: nil)]))], in: connection)
            }
        }
        async let first: Void = complete()
        async let second: Void = complete()
        _ = try await (first, second)
        let counted = try await db.query("SELECT counted_successful FROM messages WHERE id = 'msg_retrying'").firstRow()
        #expect(try counted.decode("counted_successful", as: Int.self) == 2)
    }

    static func completion(_ db: PostgresPool) async throws -> Double {
        try await db.transaction { connection in
            try connection.query("SELECT id FROM messages WHERE id = 'msg_paced' FOR SHARE")
            try connection.query("SELECT pg_sleep(0.3)")
            return try connection.query("""
                SELECT extract(epoch FROM openpush_throttle_reserve('msg_paced', '2026-06-01T00:00:00Z', 1))::float8 AS at
                """).firstRow().decode("at")
        }
    }
}
