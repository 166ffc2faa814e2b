import Testing
import OpenPushServer
import OpenPushTestSupport
import Postgres

@Suite struct RateLimiterTests {
    static func admit(_ pool: PostgresPool, appID: String, now: Double, limit: RateLimit = .liveActivitySends) async throws -> Bool {
        try await pool.transaction { try RateLimiter.admit(appID: appID, limit, now: now, in: $0) }
    }

    @Test func admitsSixtyPerSixtySecondsThenSlides() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let pool = app.services.database
        let start = 1_756_598_400.0
        for second in 0..<60 {
            #expect(try await Self.admit(pool, appID: appID, now: start + Double(second) * 0.5))
        }
        #expect(try await Self.admit(pool, appID: appID, now: start + 59.9) == false)
        // The first request leaves the window 60 s after it was admitted, and only then.
        #expect(try await Self.admit(pool, appID: appID, now: start + 59.999) == false)
        #expect(try await Self.admit(pool, appID: appID, now: start + 60.0))
        #expect(try await Self.admit(pool, appID: appID, now: start + 60.1) == false)
        #expect(try await Self.admit(pool, appID: appID, now: start + 60.5))
    }

    @Test func appsAndBucketsAreCountedSeparately() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp().app.id
        let second = try await app.createApp().app.id
        let tiny = RateLimit(bucket: "tiny", limit: 1, window: 60)
        #expect(try await Self.admit(app.services.database, appID: first, now: 1000, limit: tiny))
        #expect(try await Self.admit(app.services.database, appID: first, now: 1001, limit: tiny) == false)
        #expect(try await Self.admit(app.services.database, appID: second, now: 1001, limit: tiny))
        #expect(try await Self.admit(app.services.database, appID: first, now: 1001))
    }

    @Test func concurrentCallersFromSeparatePoolsNeverExceedTheLimit() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        // Callers queue behind one app's advisory lock: a loaded machine may keep one waiting for seconds.
        let pools = [PostgresPool(conninfo: app.conninfo, size: 4, acquireTimeout: .seconds(60)),
                     PostgresPool(conninfo: app.conninfo, size: 4, acquireTimeout: .seconds(60))]
        let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<100 {
                group.addTask { try await Self.admit(pools[index % 2], appID: appID, now: 5000 + Double(index) * 0.01) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 60)
        for pool in pools { await pool.close() }
    }
}
