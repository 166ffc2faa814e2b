import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The webhook endpoint routes: shapes, the secret shown once, rotation, the test ping, and
/// another app's key or endpoint never reaching this app's.
@Suite struct WebhookRoutesTests {
    static let url = "https://hooks.example.com/openpush"

    static func create(_ app: TestApp, _ created: CreatedApp, _ body: JSONObject = ["url": .string(url), "events": ["*"]])
        async -> TestResponse
    {
        await app.request(.post, "/apps/\(created.app.id)/webhooks", headers: .restKey(created.restKey), json: .object(body))
    }

    static func webhookRow(_ app: TestApp, _ id: String) async throws -> PostgresRow {
        try await app.services.database.query("""
            SELECT secret, previous_secret, extract(epoch FROM previous_secret_until)::float8 AS until, cursor_seq, enabled,
                   disabled_reason, failed_attempts
            FROM webhooks WHERE id = \(id)
            """).firstRow()
    }

    @Test func createShowsTheSecretOnceAndTheViewsNever() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let response = await Self.create(app, created, ["url": .string(Self.url), "events": ["delivery.accepted", "click"],
                                                        "description": "Orders"])
        #expect(response.status == 201, "\(response.text)")
        let body = try #require(response.json?.objectValue)
        let id = try #require(body["id"]?.stringValue)
        #expect(Identifier.isWellFormed(id, prefix: "whk"))
        let secret = try #require(body["secret"]?.stringValue)
        #expect(secret.hasPrefix("whsec_") && secret.count == "whsec_".count + 64)
        #expect(body["url"] == .string(Self.url))
        #expect(body["events"] == ["delivery.accepted", "click"])
        #expect(body["description"] == "Orders")
        #expect(body["enabled"] == true)
        #expect(body["created_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(try await Self.webhookRow(app, id).decode("secret", as: String.self) == secret)

        let view = await app.request(.get, "/apps/\(created.app.id)/webhooks/\(id)", headers: .restKey(created.restKey))
        #expect(view.status == 200)
        let shown = try #require(view.json?.objectValue)
        #expect(shown["secret"] == nil)
        #expect(!view.text.contains(secret))
        #expect(Set(shown.keys) == ["id", "url", "events", "description", "enabled", "disabled_reason", "last_success_at",
                                    "last_failure_at", "last_failure_status", "created_at", "updated_at"])
        #expect(shown["disabled_reason"] == .null && shown["last_failure_status"] == .null)

        let second = await Self.create(app, created, ["url": "https://b.example.com/", "events": ["*"]])
        #expect(second.status == 201)
        let list = await app.request(.get, "/apps/\(created.app.id)/webhooks", headers: .restKey(created.restKey))
        #expect(list.status == 200)
        let hooks = try #require(list.json?.objectValue?["webhooks"]?.arrayValue)
        #expect(hooks.map { $0.objectValue?["id"] } == [.string(id), second.json?.objectValue?["id"]])
        #expect(!list.text.contains("whsec_"))
    }

    @Test func aNewEndpointStartsAtTheAppsNewestEvent() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        try await app.services.database.transaction {
            try EventOutbox.append([OutboundEvent(type: .click, appID: created.app.id, data: [:]),
                                    OutboundEvent(type: .click, appID: created.app.id, data: [:])], in: $0)
        }
        let newest: Int64 = try await app.services.database.query("SELECT max(seq) AS s FROM events").firstRow().decode("s")
        let id = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        #expect(try await Self.webhookRow(app, id).decode("cursor_seq", as: Int64.self) == newest)
    }

    @Test func patchChangesFieldsAndReEnablingResumesWithNewEventsOnly() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        let path = "/apps/\(created.app.id)/webhooks/\(id)"
        let changed = await app.request(.patch, path, headers: .restKey(created.restKey),
                                        json: ["url": "https://other.example.com/h", "events": ["click"], "description": .null])
        #expect(changed.status == 200, "\(changed.text)")
        #expect(changed.json?.objectValue?["url"] == "https://other.example.com/h")
        #expect(changed.json?.objectValue?["events"] == ["click"])
        #expect(changed.json?.objectValue?["description"] == .null)
        #expect(changed.json?.objectValue?["secret"] == nil)

        // The dispatcher gave up on it; events followed.
        try await app.services.database.query("""
            UPDATE webhooks SET enabled = false, disabled_reason = 'failing for 24 hours', failed_attempts = 30,
                   failing_since = now() - interval '1 day', last_failure_status = 500 WHERE id = \(id)
            """)
        try await app.services.database.transaction {
            try EventOutbox.append([OutboundEvent(type: .click, appID: created.app.id, data: [:])], in: $0)
        }
        let disabled = await app.request(.get, path, headers: .restKey(created.restKey))
        #expect(disabled.json?.objectValue?["enabled"] == false)
        #expect(disabled.json?.objectValue?["disabled_reason"] == "failing for 24 hours")
        let enabled = await app.request(.patch, path, headers: .restKey(created.restKey), json: ["enabled": true])
        #expect(enabled.status == 200)
        #expect(enabled.json?.objectValue?["enabled"] == true)
        #expect(enabled.json?.objectValue?["disabled_reason"] == .null)
        let row = try await Self.webhookRow(app, id)
        let newest: Int64 = try await app.services.database.query("SELECT max(seq) AS s FROM events").firstRow().decode("s")
        #expect(try row.decode("cursor_seq", as: Int64.self) == newest)
        #expect(try row.decode("failed_attempts", as: Int.self) == 0)

        let bad = await app.request(.patch, path, headers: .restKey(created.restKey),
                                    json: ["url": "ftp://example.com", "events": ["nope"], "enabled": 1])
        #expect(bad.status == 400)
        #expect(bad.json?.objectValue?["errors"]?.arrayValue?.count == 3)
    }

    @Test func rotateKeepsThePreviousSecretFor24Hours() async throws {
        let clock = ManualClock(1_800_000_000)
        let app = try await TestApp.make(now: clock.source)
        let created = try await app.createApp()
        let first = try #require(await Self.create(app, created).json?.objectValue)
        let id = try #require(first["id"]?.stringValue)
        let rotated = await app.request(.post, "/apps/\(created.app.id)/webhooks/\(id)/rotate_secret", headers: .restKey(created.restKey))
        #expect(rotated.status == 200)
        let secret = try #require(rotated.json?.objectValue?["secret"]?.stringValue)
        #expect(secret != first["secret"]?.stringValue && secret.hasPrefix("whsec_"))
        #expect(rotated.json?.objectValue?["id"] == .string(id))
        let row = try await Self.webhookRow(app, id)
        #expect(try row.decode("secret", as: String.self) == secret)
        #expect(try row.decode("previous_secret", as: String?.self) == first["secret"]?.stringValue)
        #expect(try row.decode("until", as: Double.self) == 1_800_000_000 + 86_400)
        let view = await app.request(.get, "/apps/\(created.app.id)/webhooks/\(id)", headers: .restKey(created.restKey))
        #expect(!view.text.contains("whsec_"))
    }

    @Test func theTestRouteQueuesAPingForThatEndpointOnly() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        _ = await Self.create(app, created)
        let response = await app.request(.post, "/apps/\(created.app.id)/webhooks/\(id)/test", headers: .restKey(created.restKey))
        #expect(response.status == 202)
        let eventID = try #require(response.json?.objectValue?["event_id"]?.stringValue)
        #expect(eventID.hasPrefix("evt_"))
        let rows = try await app.services.database.query("SELECT id, type, data::text AS data, webhook_id, app_id FROM events")
        #expect(rows.count == 1)
        let row = try rows.firstRow()
        #expect(try row.decode("id", as: String.self) == eventID)
        #expect(try row.decode("type", as: String.self) == "ping")
        #expect(try row.decode("data", as: String.self) == "{}")
        #expect(try row.decode("webhook_id", as: String?.self) == id)
        // Pings are the endpoint's, not the feed's.
        let feed = await app.request(.get, "/apps/\(created.app.id)/events", headers: .restKey(created.restKey))
        #expect(feed.json?.objectValue?["events"] == [])

        try await app.services.database.query("UPDATE webhooks SET enabled = false WHERE id = \(id)")
        let refused = await app.request(.post, "/apps/\(created.app.id)/webhooks/\(id)/test", headers: .restKey(created.restKey))
        #expect(refused.status == 409)
    }

    @Test func deleteAnswers204AndTheEndpointIsGone() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        let path = "/apps/\(created.app.id)/webhooks/\(id)"
        let deleted = await app.request(.delete, path, headers: .restKey(created.restKey))
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        let again = await app.request(.get, path, headers: .restKey(created.restKey))
        #expect(again.status == 404)
        #expect(again.json == ["errors": .array([.string("webhook '\(id)' not found")])])
        #expect(await app.request(.delete, path, headers: .restKey(created.restKey)).status == 404)
    }

    @Test func anotherAppsKeyOrEndpointNeverReachesThisApps() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other"))
        let id = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        let base = "/apps/\(created.app.id)/webhooks"
        // Another app's key on this app's routes: 401, as on every REST route.
        for (method, path) in [(HTTPMethod.get, base), (.post, base), (.get, "\(base)/\(id)"), (.patch, "\(base)/\(id)"),
                               (.delete, "\(base)/\(id)"), (.post, "\(base)/\(id)/rotate_secret"), (.post, "\(base)/\(id)/test"),
                               (.get, "/apps/\(created.app.id)/events")] {
            let response = await app.request(method, path, headers: .restKey(other.restKey), json: ["enabled": true])
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.json?.objectValue?["errors"] != nil)
        }
        // This app's endpoint through the other app's path and key: not found there.
        let otherBase = "/apps/\(other.app.id)/webhooks"
        for (method, path) in [(HTTPMethod.get, "\(otherBase)/\(id)"), (.patch, "\(otherBase)/\(id)"), (.delete, "\(otherBase)/\(id)"),
                               (.post, "\(otherBase)/\(id)/rotate_secret"), (.post, "\(otherBase)/\(id)/test")] {
            let response = await app.request(method, path, headers: .restKey(other.restKey), json: ["enabled": false])
            #expect(response.status == 404, "\(method) \(path)")
            #expect(response.json == ["errors": .array([.string("webhook '\(id)' not found")])])
        }
        let list = await app.request(.get, otherBase, headers: .restKey(other.restKey))
        #expect(list.json == ["webhooks": []])
        #expect(try await Self.webhookRow(app, id).decode("enabled", as: Bool.self))
    }

    @Test func badBodiesAre400sNamingTheField() async throws {
        let app = try await TestApp.make(configure: { $0.webhooksAllowPrivate = false })
        let created = try await app.createApp()
        let cases: [(JSONObject, String)] = [
            (["url": "http://example.com/h", "events": ["*"]], WebhookURL.Problem.notHTTPS.message),
            (["url": "https://127.0.0.1/h", "events": ["*"]], WebhookURL.Problem.privateAddress.message),
            (["url": "https://localhost/h", "events": ["*"]], WebhookURL.Problem.privateAddress.message),
            (["url": "https://example.com/h", "events": []], WebhookFields.eventsProblem),
            (["url": "https://example.com/h"], "events is required"),
            (["events": ["*"]], "url is required"),
        ]
        for (body, message) in cases {
            let response = await Self.create(app, created, body)
            #expect(response.status == 400)
            #expect(response.json == ["errors": .array([.string(message)])], "\(body)")
        }
        let malformed = await app.request(.post, "/apps/\(created.app.id)/webhooks", headers: .restKey(created.restKey),
                                          body: Array("{".utf8))
        #expect(malformed.status == 400)
    }

    /// Seventeen endpoints, then eight creates at once: three take the last places and the rest
    /// are `400`s naming the limit; another app is unaffected, and deleting one frees a place.
    /// (Eight, not twenty-five, at once: on a loaded test machine twenty-five waiting for one
    /// app's lock outwait the pool's acquire bound and answer `503`.)
    @Test func anAppHasAtMostTwentyEndpointsEvenUnderConcurrentCreates() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other"))
        for index in 0..<17 {
            #expect(await Self.create(app, created, ["url": .string("https://s\(index).example.com/"), "events": ["*"]]).status == 201)
        }
        let statuses = await withTaskGroup(of: TestResponse.self) { group in
            for index in 0..<8 {
                group.addTask {
                    await Self.create(app, created, ["url": .string("https://h\(index).example.com/"), "events": ["*"]])
                }
            }
            return await group.reduce(into: [TestResponse]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0.status == 201 }.count == 3)
        let refused = statuses.filter { $0.status != 201 }
        #expect(refused.count == 5)
        for response in refused {
            #expect(response.status == 400)
            #expect(response.json == ["errors": .array([.string(WebhookLimits.tooManyEndpoints)])])
        }
        #expect(WebhookLimits.tooManyEndpoints.contains("20"))
        let count: Int = try await app.services.database.query("""
            SELECT count(*)::int AS n FROM webhooks WHERE app_id = \(created.app.id)
            """).firstRow().decode("n")
        #expect(count == 20)
        #expect(await Self.create(app, created).status == 400)

        // The other app's places are its own.
        #expect(await Self.create(app, other).status == 201)

        let list = await app.request(.get, "/apps/\(created.app.id)/webhooks", headers: .restKey(created.restKey))
        let first = try #require(list.json?.objectValue?["webhooks"]?.arrayValue?.first?.objectValue?["id"]?.stringValue)
        #expect(await app.request(.delete, "/apps/\(created.app.id)/webhooks/\(first)", headers: .restKey(created.restKey)).status == 204)
        #expect(await Self.create(app, created).status == 201)
        #expect(await Self.create(app, created).status == 400)
    }

    /// A host libcurl would percent-decode or IDN-convert is a `400` naming `url` at create and at
    /// update, whether or not private addresses are allowed; nothing is stored.
    @Test(arguments: [true, false])
    func hostsThatAreNotPlainASCIINamesOrLiteralsAreRefused(_ allowPrivate: Bool) async throws {
        let app = try await TestApp.make(configure: { $0.webhooksAllowPrivate = allowPrivate })
        let created = try await app.createApp()
        let id = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        for url in ["https://x%2ey.example/", "https://\u{E4}.example/", "https://under_score.example/", "https://a..b.example/",
                    "https://example.com./hook", "https://[fe80::1%25eth0]/"] {
            let response = await Self.create(app, created, ["url": .string(url), "events": ["*"]])
            #expect(response.status == 400, "\(url)")
            #expect(response.json == ["errors": .array([.string(WebhookURL.Problem.badHost.message)])], "\(url)")
            let patched = await app.request(.patch, "/apps/\(created.app.id)/webhooks/\(id)", headers: .restKey(created.restKey),
                                             json: ["url": .string(url)])
            #expect(patched.status == 400, "\(url)")
            #expect(patched.json == ["errors": .array([.string(WebhookURL.Problem.badHost.message)])], "\(url)")
        }
        let urls: [String] = try await app.services.database.query("SELECT url FROM webhooks WHERE app_id = \(created.app.id)")
            .map { try $0.decode("url") }
        #expect(urls == [Self.url])
        let punycode = await Self.create(app, created, ["url": "https://xn--bcher-kva.example/hook", "events": ["*"]])
        #expect(punycode.status == 201, "\(punycode.text)")
    }

    /// Ten test pings a minute per endpoint, then `429` with `Retry-After` (seconds until the
    /// oldest leaves the window); another endpoint of the app and another app's are unaffected.
    @Test func theTestRouteTakesTenPingsAMinutePerEndpoint() async throws {
        let clock = ManualClock(1_800_000_000)
        let app = try await TestApp.make(now: clock.source)
        let created = try await app.createApp()
        let other = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other"))
        let id = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        let second = try #require(await Self.create(app, created).json?.objectValue?["id"]?.stringValue)
        let otherID = try #require(await Self.create(app, other).json?.objectValue?["id"]?.stringValue)
        func test(_ id: String, _ key: CreatedApp) async -> TestResponse {
            await app.request(.post, "/apps/\(key.app.id)/webhooks/\(id)/test", headers: .restKey(key.restKey))
        }
        for index in 0..<10 {
            #expect(await test(id, created).status == 202, "ping \(index)")
            clock.advance(by: 2)
        }
        // 20 s after the first ping: it leaves the window 40 s from now.
        let refused = await test(id, created)
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "40")
        #expect(refused.json == ["errors": .array([.string(WebhookLimits.tooManyTests)])])
        #expect(await test(second, created).status == 202)
        #expect(await test(otherID, other).status == 202)
        let pings: Int = try await app.services.database.query("""
            SELECT count(*)::int AS n FROM events WHERE webhook_id = \(id)
            """).firstRow().decode("n")
        #expect(pings == 10)
        clock.advance(by: 39)
        #expect(await test(id, created).status == 429)
        clock.advance(by: 1)
        #expect(await test(id, created).status == 202)
        #expect(await test(id, created).status == 429)
    }
}
