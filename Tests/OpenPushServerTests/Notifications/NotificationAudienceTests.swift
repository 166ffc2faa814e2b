import OpenPushCore
@testable import OpenPushDelivery
import OpenPushTestSupport
import Postgres
import Testing
@testable import OpenPushServer

/// The pages a fan-out is expanded in: each reads its own rows, not every targeted id before it,
/// and a segment's page reads them once.
@Suite struct NotificationAudienceTests {
    @Test func aLatePageReadsOnlyTheRowsAfterItsCursor() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let appID = created.app.id
        try await app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_' || lpad(g::text, 8, '0'), \(appID), lpad(to_hex(g), 64, '0'), now(), now()
            FROM generate_series(1, 100000) AS g
            """)
        try await app.services.database.query("ANALYZE subscriptions")
        let pageSize = NotificationExpansion.defaultPageSize
        func rowsRead(_ targeted: TargetedAudience) async throws -> Int {
            try await app.services.database.withConnection { connection -> Int in
                let page = NotificationAudience.recipients(targeted: targeted, appID: appID, kind: .alert, after: "sub_00090000")
                let ids = try connection.query("\(page) LIMIT \(pageSize)").map { try $0.decode("id", as: String.self) }
                #expect(ids.first == "sub_00090001")
                #expect(ids.count == pageSize)
                let plan: String = try connection.query("EXPLAIN (ANALYZE, FORMAT JSON) \(page) LIMIT \(pageSize)").firstRow()
                    .decode("QUERY PLAN")
                return Self.rowsRead(plan)
            }
        }
        let segment = try await app.services.database.withConnection {
            try SegmentAudience.condition(appID: appID, included: ["Subscribed Users"], now: 0, in: $0)
        }
        // A segment is a condition on the rows the page reads: its own 4,000, once.
        #expect(try await rowsRead(.matching(segment)) <= pageSize + 1)
        // A subquery of ids is joined back: two index scans of the page's own rows; without the
        // cursor inside the `IN`, the targeted side scans the 90,000 ids before it as well.
        #expect(try await rowsRead(.ids(SegmentAudience.selectIDs(where: segment))) < 4 * pageSize)
    }

    /// Subscription ids are time-ordered, so the apps of one database interleave in id order.
    /// A page of one app reads the app's rows after its cursor, not every app's rows after it,
    /// nor every row of the app before it (a fan-out's pages would cost quadratic time).
    @Test func aPageReadsOnlyItsOwnAppsRowsAfterItsCursor() async throws {
        let app = try await TestApp.make()
        let big = try await app.createApp().app.id
        let small = try await app.createApp().app.id
        // Every 100th subscription is the small app's: 1,000 of 100,000.
        try await app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_' || lpad(g::text, 8, '0'), CASE WHEN g % 100 = 0 THEN \(small) ELSE \(big) END,
                   lpad(to_hex(g), 64, '0'), now(), now()
            FROM generate_series(1, 100000) AS g
            """)
        try await app.services.database.query("ANALYZE subscriptions")
        // Pages of 400 (a tenth of a real one), to keep the table small.
        let pageSize = 400
        let examined = try await app.services.database.withConnection { connection -> Int in
            let segment = try SegmentAudience.condition(appID: small, included: ["Subscribed Users"], now: 0, in: connection)
            // After the small app's 500th device.
            let page = NotificationAudience.recipients(targeted: .matching(segment), appID: small, kind: .alert, after: "sub_00050000")
            let limited: PostgresQuery = "\(page) LIMIT \(pageSize)"
            let ids = try connection.query(limited).map { try $0.decode("id", as: String.self) }
            #expect(ids.first == "sub_00050100" && ids.count == pageSize)
            let plan: String = try connection.query("EXPLAIN (ANALYZE, FORMAT JSON) \(limited)").firstRow().decode("QUERY PLAN")
            return Self.rowsRead(plan, countingFiltered: true)
        }
        // Without `subscriptions_by_app` (migration 0044): the 40,000 rows of both apps after the
        // cursor, or the small app's 1,000 from its first.
        #expect(examined <= pageSize + 1)
    }

    /// Whether a send's audience holds a browser (asked when no VAPID subject is set) is one
    /// probe for an app of phones only, not a read of every one of its devices.
    @Test func askingWhetherAnAudienceHoldsABrowserReadsNoPhone() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        try await app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_' || lpad(g::text, 8, '0'), \(appID), lpad(to_hex(g), 64, '0'), now(), now()
            FROM generate_series(1, 50000) AS g
            """)
        try await app.services.database.query("ANALYZE subscriptions")
        let examined = try await app.services.database.withConnection { connection -> Int in
            let segment = try SegmentAudience.condition(appID: appID, included: ["Subscribed Users"], now: 0, in: connection)
            let notWeb = Set(PushService.allCases.filter { $0 != .webPush })
            #expect(try NotificationAudience.isEmpty(targeted: .matching(segment), appID: appID, kind: .alert, excluding: notWeb,
                                                     in: connection))
            let audience = NotificationAudience.recipients(targeted: .matching(segment), appID: appID, kind: .alert,
                                                           excluding: notWeb, after: nil)
            let plan: String = try connection.query("EXPLAIN (ANALYZE, FORMAT JSON) SELECT EXISTS (\(audience) LIMIT 1)")
                .firstRow().decode("QUERY PLAN")
            return Self.rowsRead(plan, countingFiltered: true)
        }
        // Without `subscriptions_web_by_app` (migration 0062): the app's 50,000 phones, read and dropped.
        #expect(examined == 0)
    }

    /// The rows every scan node of an `EXPLAIN (ANALYZE, FORMAT JSON)` produced, summed.
    /// `countingFiltered`: with the rows the scans read and dropped (by a filter or a recheck).
    static func rowsRead(_ plan: String, countingFiltered: Bool = false) -> Int {
        func walk(_ node: JSONValue) -> Int {
            guard let object = node.objectValue else { return node.arrayValue?.reduce(0) { $0 + walk($1) } ?? 0 }
            var rows = 0
            if object["Node Type"]?.stringValue?.hasSuffix("Scan") == true, case .int(let n)? = object["Actual Rows"] {
                rows += Int(n)
                for dropped in ["Rows Removed by Filter", "Rows Removed by Index Recheck"] where countingFiltered {
                    if case .int(let m)? = object[dropped] { rows += Int(m) }
                }
            }
            for child in object["Plans"]?.arrayValue ?? [] { rows += walk(child) }
            if let inner = object["Plan"] { rows += walk(inner) }
            return rows
        }
        return (try? JSONValue.parse(plan)).map(walk) ?? .max
    }
}
