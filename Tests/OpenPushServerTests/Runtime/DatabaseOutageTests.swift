import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// PostgreSQL going away must cost requests a fast `503`, never the process; when it comes
/// back, the pool reconnects by itself.
@Suite struct DatabaseOutageTests {
    @Test func answers503WhileTheDatabaseIsDownAndRecovers() async throws {
        let database = try await PrivateCluster(prefix: "openpush-outage")
        let cluster = database.cluster
        defer { withExtendedLifetime(database) {} }
        let app = try TestApp.make(conninfo: database.conninfo, routes: TestRoutes.register)
        #expect(await app.request(.get, "/ready").status == 200)
        #expect(await app.request(.get, "/v1/apps/a/test/database").status == 200)

        try cluster.stop(mode: .fast)
        let started = ContinuousClock.now
        let native = await app.request(.get, "/v1/apps/a/test/database")
        let rest = await app.request(.get, "/apps/a/test/database")
        let ready = await app.request(.get, "/ready")
        // Refused connections fail at once; the bound tells that from requests hanging on the
        // stopped database, with room for the parallel run's load.
        #expect(ContinuousClock.now - started < .seconds(60), "failing requests must fail fast")
        #expect(native.status == 503)
        #expect(native.json?.objectValue?["detail"]?.stringValue?.isEmpty == false)
        #expect(rest.status == 503)
        #expect(rest.json?.objectValue?["errors"]?.arrayValue?.count == 1)
        #expect(ready.status == 503)
        #expect(await app.request(.get, "/health").status == 200)

        try cluster.start()
        // Generous for a loaded machine; a pool that never reconnects fails it all the same.
        let deadline = ContinuousClock.now + .seconds(120)
        var recovered = false
        while ContinuousClock.now < deadline {
            if await app.request(.get, "/apps/a/test/database").status == 200 { recovered = true; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(recovered, "the pool did not reconnect within 120 s")
        #expect(await app.request(.get, "/ready").status == 200)
    }
}
