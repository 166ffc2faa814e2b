import Foundation
import Testing
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The send routes' limit lives in PostgreSQL, so two `openpush serve` processes on one
/// database share it.
@Suite struct RateLimitAcrossProcessesTests {
    @Test func twoServersAdmitSixtyBetweenThem() async throws {
        let database = try await TestDatabase.create()
        let pool = database.makePool(size: 2)
        let created = try await AppStore.create(AppSettings(name: "Limited"), now: WallClock.now(), in: pool)
        await pool.close()
        let servers = try (0..<2).map { _ in
            try OpenPushProcess(["serve", "--no-migrate"], environment: [
                "OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_LISTEN": "127.0.0.1:0",
            ])
        }
        var ports: [Int] = []
        for server in servers { ports.append(try await server.waitForPort()) }
        // One curl for all seventy, one after another on kept-alive connections: a curl process
        // per request took more than the 60 s window on a loaded machine, and the first ones
        // then left the window before the last came.
        let urls = (0..<70).map { index in
            let path = index % 3 == 0
                ? "/apps/\(created.app.id)/live_activities/x/notifications"
                : "/apps/\(created.app.id)/activities/activity/T"
            return "http://127.0.0.1:\(ports[index % 2])\(path)"
        }
        let statuses = try await Curl.statuses(["-X", "POST", "-H", "Authorization: Key \(created.restKey)",
                                                "-H", "Content-Type: application/json", "--data-binary", "{}"], urls: urls)
        #expect(statuses.count == 70)
        #expect(statuses.filter { $0 == 400 }.count == 60)
        #expect(statuses.filter { $0 == 429 }.count == 10)
        #expect(Array(statuses.prefix(60)).allSatisfy { $0 == 400 })
        for server in servers {
            server.signal(SIGTERM)
            _ = try await server.waitForExit()
        }
    }
}
