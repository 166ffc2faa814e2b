import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// A database that stops answering without closing anything (a frozen host, a dead link, here a
/// stalled proxy) must cost requests a bounded wait and a `503`, fail `/ready`, and be forgotten
/// as soon as it answers again, without a restart.
@Suite struct DatabaseBlackHoleTests {
    @Test func requestsAnswer503WithinTheBoundAndRecoverWhenTheDatabaseAnswersAgain() async throws {
        let database = try await TestDatabase.create()
        let (proxy, conninfo) = try StallingTCPProxy.inFront(of: database.conninfo)
        defer { proxy.close() }
        // Statement timeout 2 s: a reply is given up on after 4 s, a login through the stall after 2 s.
        let app = try TestApp.make(conninfo: conninfo, configure: { $0.databaseStatementTimeoutMilliseconds = 2000 },
                                   routes: TestRoutes.register)
        #expect(await app.request(.get, "/ready").status == 200)
        // Open every pooled connection, so that the stall finds idle ones that look healthy.
        let warm = await Self.concurrently(4) { _ in await app.request(.get, "/apps/a/test/database").status }
        #expect(warm == [200, 200, 200, 200])

        proxy.stall()
        // Without bounds these requests would wait forever; resume after a while so that a
        // regression fails the expectations below instead of hanging the suite.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(150))
            proxy.resume()
        }
        let started = ContinuousClock.now
        // More requests than connections: some wait for a connection, then for a login.
        let answers = await Self.concurrently(10) { index in
            let path = index % 2 == 0 ? "/apps/a/test/database" : "/v1/apps/a/test/database"
            let response = await app.request(.get, path)
            return (response, ContinuousClock.now - started)
        }
        let ready = await app.request(.get, "/ready")
        watchdog.cancel()
        for (index, (response, elapsed)) in answers.enumerated() {
            #expect(response.status == 503, "request \(index)")
            #expect(elapsed < .seconds(60), "request \(index) took \(elapsed)")
            let body = response.json?.objectValue
            #expect(index % 2 == 0 ? body?["errors"]?.arrayValue?.count == 1 : body?["detail"]?.stringValue != nil)
        }
        #expect(ready.status == 503)
        #expect(await app.request(.get, "/health").status == 200)

        proxy.resume()
        let deadline = ContinuousClock.now + .seconds(120)
        var recovered = false
        while !recovered, ContinuousClock.now < deadline {
            recovered = await app.request(.get, "/apps/a/test/database").status == 200
            if !recovered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered, "the pool did not recover within 120 s of the database answering again")
        #expect(await app.request(.get, "/ready").status == 200)
        let after = await Self.concurrently(6) { _ in await app.request(.get, "/apps/a/test/database").status }
        #expect(after.allSatisfy { $0 == 200 })
        await app.services.database.close()
    }

    static func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async -> T) async -> [T] {
        await withTaskGroup(of: (Int, T).self) { group in
            for index in 0..<count { group.addTask { (index, await body(index)) } }
            var results: [(Int, T)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
