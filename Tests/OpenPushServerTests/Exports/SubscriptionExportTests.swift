import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /players/csv_export` and the file it names: recorded at once, `404` until the
/// producer wrote it, OneSignal's columns, only that app's subscriptions, only with its key.
@Suite struct SubscriptionExportTests {
    static func export(_ app: TestApp, _ created: CreatedApp, key: String? = nil, body: JSONValue? = nil) async -> TestResponse {
        var headers = HTTPHeaders.restKey(key ?? created.restKey)
        headers.add(name: "Content-Type", value: "application/json")
        return await app.request(.post, "/players/csv_export", headers: headers, body: body?.serializedBytes ?? [],
                                 query: ["app_id": created.app.id])
    }

    static func url(_ response: TestResponse) throws -> String {
        try #require(response.status == 200, "\(response.status) \(response.text)")
        return try #require(response.json?.objectValue?["csv_file_url"]?.stringValue)
    }

    static let tokens = (0..<3).map { String(format: "%02x", $0 + 0xa0) + String(repeating: "e", count: 62) }

    @Test func theFileHoldsTheAppsSubscriptionsWithOneSignalsColumns() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let other = try await app.createApp()
        var ids: [String] = []
        for (index, token) in Self.tokens.enumerated() {
            ids.append(try await app.insertSubscription(appID: first.app.id, token: token, externalID: index == 0 ? "user, \"one\"" : nil))
        }
        let stranger = try await app.insertSubscription(appID: other.app.id, token: String(repeating: "f", count: 64), externalID: "x")
        try await app.services.database.query("""
            UPDATE subscriptions SET tags = '{"level": "7"}', language = 'fr', timezone = 'Europe/Paris', session_count = 4,
                                     created_at = to_timestamp(1700000000), last_session_at = to_timestamp(1700003600),
                                     token_invalid_at = now()
            WHERE id = \(ids[1])
            """)

        let response = await Self.export(app, first, body: [:])
        let url = try Self.url(response)
        #expect(url.hasSuffix(".csv.gz"))
        #expect(Exports.path(url).hasPrefix("/apps/\(first.app.id)/exports/exp_"))
        // Recorded, not produced: the file is not there yet.
        let early = try await Exports.download(app, url, key: first.restKey)
        #expect(early.status == 404)
        #expect(early.json == ["errors": [.string("export '\(Exports.path(url).split(separator: "/").last ?? "")' is not ready yet; try again shortly")]])

        #expect(try await Exports.produce(app))
        let records = try Exports.records(try await Exports.download(app, url, key: first.restKey))
        #expect(records.first == ["id", "identifier", "external_user_id", "device_type", "language", "timezone", "session_count",
                                  "created_at", "last_active", "invalid_identifier", "tags"])
        let rows = Exports.rows(records)
        #expect(rows.count == 3)
        #expect(Set(rows.compactMap { $0["id"] }) == Set(ids))
        #expect(!rows.contains { $0["id"] == stranger })
        let tagged = try #require(rows.first { $0["id"] == ids[1] })
        #expect(tagged["identifier"] == Self.tokens[1])
        #expect(tagged["device_type"] == "0")
        #expect(tagged["language"] == "fr")
        #expect(tagged["timezone"] == "Europe/Paris")
        #expect(tagged["session_count"] == "4")
        #expect(tagged["created_at"] == "2023-11-14 22:13:20")
        #expect(tagged["last_active"] == "2023-11-14 23:13:20")
        #expect(tagged["invalid_identifier"] == "t")
        #expect(try JSONValue.parse(Array((tagged["tags"] ?? "").utf8)) == ["level": "7"])
        let named = try #require(rows.first { $0["id"] == ids[0] })
        #expect(named["external_user_id"] == "user, \"one\"")
        #expect(named["invalid_identifier"] == "f")
        #expect(named["tags"] == "{}")
    }

    @Test func optionsAddColumnsFilterAndAreChecked() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let recent = try await app.insertSubscription(appID: created.app.id, token: Self.tokens[0])
        let old = try await app.insertSubscription(appID: created.app.id, token: Self.tokens[1])
        try await app.services.database.query("""
            UPDATE subscriptions SET last_session_at = to_timestamp(1600000000), enabled = false, country = 'FR' WHERE id = \(old)
            """)
        // A value a backend sent reads back as sent (one that disagrees with `enabled` does not).
        let permissions = try await app.insertSubscription(appID: created.app.id, token: Self.tokens[2])
        try await app.services.database.query("UPDATE subscriptions SET notification_types = 15, last_session_at = to_timestamp(1600000000) WHERE id = \(permissions)")
        try await app.services.database.query("UPDATE subscriptions SET notification_types = 7 WHERE id = \(old)")
        let since = Int64(Date().timeIntervalSince1970) - 3600

        let filtered = await Self.export(app, created, body: ["extra_fields": ["country", "notification_types", "location"],
                                                             "last_active_since": .string(String(since))])
        #expect(filtered.headers["OpenPush-Ignored-Fields"] == "location")
        let everyone = await Self.export(app, created, body: ["extra_fields": ["country", "notification_types"]])
        let active = await Self.export(app, created, body: ["segment_name": "Active Users"])
        try await Exports.produceAll(app)

        let recentOnly = try Exports.records(try await Exports.download(app, try Self.url(filtered), key: created.restKey))
        #expect(recentOnly.first?.suffix(2) == ["country", "notification_types"])
        #expect(Exports.rows(recentOnly).compactMap { $0["id"] } == [recent])
        let all = Exports.rows(try Exports.records(try await Exports.download(app, try Self.url(everyone), key: created.restKey)))
        #expect(all.first { $0["id"] == old }?["notification_types"] == "-2")
        #expect(all.first { $0["id"] == old }?["country"] == "FR")
        #expect(all.first { $0["id"] == recent }?["notification_types"] == "1")
        #expect(all.first { $0["id"] == permissions }?["notification_types"] == "15")
        let segment = Exports.rows(try Exports.records(try await Exports.download(app, try Self.url(active), key: created.restKey)))
        #expect(segment.compactMap { $0["id"] } == [recent])

        let bad = await Self.export(app, created, body: ["extra_fields": ["colour"], "last_active_since": "yesterday"])
        #expect(bad.status == 400)
        #expect(bad.json?.objectValue?["errors"]?.arrayValue?.count == 2, "\(bad.text)")
        let unknownSegment = await Self.export(app, created, body: ["segment_name": "Nobody"])
        #expect(unknownSegment.status == 400)
        #expect(unknownSegment.json == ["errors": ["segment 'Nobody' not found"]])
    }

    @Test func keysAppsAndFilesAreTenantScoped() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp()
        _ = try await app.insertSubscription(appID: created.app.id, token: Self.tokens[0])
        let otherURL = try Self.url(await Self.export(app, other, body: [:]))

        // Another app's key on this app: 401; no key at all: 401; an unknown app: 404.
        #expect(await Self.export(app, created, key: other.restKey).status == 401)
        let anonymous = await app.request(.post, "/players/csv_export", query: ["app_id": created.app.id])
        #expect(anonymous.status == 401)
        #expect(await app.request(.post, "/players/csv_export").status == 401)
        #expect(await app.request(.post, "/players/csv_export", headers: .restKey(created.restKey)).json == ["errors": ["app_id is required"]])
        let unknown = await app.request(.post, "/players/csv_export", headers: .restKey(created.restKey), query: ["app_id": "app_unknown"])
        #expect(unknown.status == 404)

        let url = try Self.url(await Self.export(app, created))
        try await Exports.produceAll(app)
        #expect(try await Exports.download(app, url, key: created.restKey).status == 200)
        // The file with another app's key, or none: 401. This app's file under the other app's path: 404.
        #expect(try await Exports.download(app, url, key: other.restKey).status == 401)
        #expect(try await Exports.download(app, url, key: nil).status == 401)
        let file = Exports.path(url).split(separator: "/").last.map(String.init) ?? ""
        let crossed = await app.request(.get, "/apps/\(other.app.id)/exports/\(file)", headers: .restKey(other.restKey))
        #expect(crossed.status == 404)
        // The other app's own file is its own, and holds nothing of this app's.
        let otherRows = try Exports.records(try await Exports.download(app, otherURL, key: other.restKey))
        #expect(otherRows.count == 1)
    }

    @Test func anAppHasAFewExportsPendingAtOnceAndOthersAreNotHeldBack() async throws {
        let app = try await TestApp.make()
        let busy = try await app.createApp()
        let quiet = try await app.createApp()
        for _ in 0..<ExportLimits.pendingPerApp {
            #expect(await Self.export(app, busy).status == 200)
        }
        let refused = await Self.export(app, busy)
        #expect(refused.status == 429)
        #expect(refused.json == ["errors": .array([.string(ExportStore.tooMany)])])
        #expect(await Self.export(app, quiet).status == 200)
        // Produced, they no longer count.
        try await Exports.produceAll(app)
        #expect(await Self.export(app, busy).status == 200)
    }

    /// Apps take turns: while one app's export is in production, the next producer takes another
    /// app's job, even a newer one, rather than the first app's next.
    @Test func producersTakeAppsInTurn() async throws {
        let app = try await TestApp.make()
        let big = try await app.createApp()
        let small = try await app.createApp()
        _ = try Self.url(await Self.export(app, big))
        _ = try Self.url(await Self.export(app, big))
        _ = try Self.url(await Self.export(app, small))
        let claims = try await app.services.database.withConnection { connection in
            try ["one", "two", "three"].map { try ExportStore.claim(token: $0, in: connection)?.appID }
        }
        #expect(claims == [big.app.id, small.app.id, nil])
    }

    /// A producer that died leaves its lease to run out; another process then writes the whole
    /// file again, and the dead one's late writes are refused.
    @Test func aDeadProducersJobIsTakenAgain() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        _ = try await app.insertSubscription(appID: created.app.id, token: Self.tokens[0])
        let url = try Self.url(await Self.export(app, created))
        let dead = try #require(try await app.services.database.withConnection { try ExportStore.claim(token: "dead", in: $0) })
        try await app.services.database.query("INSERT INTO export_chunks (export_id, position, data) VALUES (\(dead.id), 0, \([UInt8]([1, 2, 3])))")
        // Still leased: nobody else takes it.
        #expect(try await !Exports.produce(app, token: "alive"))
        try await app.services.database.query("UPDATE exports SET leased_until = now() - interval '1 second' WHERE id = \(dead.id)")
        #expect(try await Exports.produce(app, token: "alive"))
        let rows = Exports.rows(try Exports.records(try await Exports.download(app, url, key: created.restKey)))
        #expect(rows.count == 1)
        let attempts: Int = try await app.services.database.query("SELECT attempts FROM exports WHERE id = \(dead.id)")[0].decode("attempts")
        #expect(attempts == 2)
    }

    @Test func filesGoAfterThreeDays() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let url = try Self.url(await Self.export(app, created))
        try await Exports.produceAll(app)
        #expect(try await Exports.download(app, url, key: created.restKey).status == 200)
        let now = app.services.now()
        #expect(try await ExportStore.prune(now: now + ExportLimits.retention - 60, in: app.services.database) == 0)
        #expect(try await ExportStore.prune(now: now + ExportLimits.retention + 1, in: app.services.database) == 1)
        #expect(try await Exports.download(app, url, key: created.restKey).status == 404)
        let chunks: Int = try await app.services.database.query("SELECT count(*)::int AS n FROM export_chunks")[0].decode("n")
        #expect(chunks == 0)
    }
}

/// On a shared demo app, a tenant's key exports the tenant's own devices, and the app's files
/// and the tenant's are not readable with each other's keys.
@Suite struct TenantExportTests {
    static let organizationKey = "org-key-exports"

    @Test func aTenantsExportHoldsItsDevicesOnly() async throws {
        let app = try await TestApp.make(configure: { $0.organizationAPIKey = Self.organizationKey })
        let org: HTTPHeaders = ["Authorization": "Key \(Self.organizationKey)"]
        let shared = try #require(await app.request(.post, "/apps", headers: org, json: ["name": "Shared", "shared_demo": true])
            .json?.objectValue)
        let appID = try #require(shared["id"]?.stringValue)
        let appKey = try #require(shared["basic_auth_key"]?.stringValue)
        let sdkKey = try #require(shared["sdk_key"]?.stringValue)
        let tenant = try #require(await app.request(.post, "/apps/\(appID)/tenants", headers: org, json: ["name": "Acme"])
            .json?.objectValue)
        let tenantKey = try #require(tenant["rest_api_key"]?.stringValue)
        let linkCode = try #require(tenant["link_code"]?.stringValue)
        let linked = String(repeating: "ab", count: 32)
        let unlinked = String(repeating: "cd", count: 32)
        var ids: [String: String] = [:]
        for token in [linked, unlinked] {
            let response = await app.request(.post, "/v1/apps/\(appID)/subscriptions", headers: .sdkKey(sdkKey),
                                             json: ["token": .string(token)])
            ids[token] = try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
        }
        let link = await app.request(.post, "/v1/apps/\(appID)/devices/link", headers: .sdkKey(sdkKey),
                                     json: ["token": .string(linked), "code": .string(linkCode)])
        #expect(link.status == 200, "\(link.text)")

        func export(_ key: String) async throws -> String {
            let response = await app.request(.post, "/players/csv_export", headers: .restKey(key), query: ["app_id": appID])
            return try #require(response.json?.objectValue?["csv_file_url"]?.stringValue, "\(response.text)")
        }
        let tenantURL = try await export(tenantKey)
        let appURL = try await export(appKey)
        try await Exports.produceAll(app)

        let tenantRows = Exports.rows(try Exports.records(try await Exports.download(app, tenantURL, key: tenantKey)))
        #expect(tenantRows.compactMap { $0["id"] } == [ids[linked]])
        let appRows = Exports.rows(try Exports.records(try await Exports.download(app, appURL, key: appKey)))
        #expect(Set(appRows.compactMap { $0["id"] }) == Set(ids.values))
        // Each other's files are as missing as unknown ones.
        #expect(try await Exports.download(app, appURL, key: tenantKey).status == 404)
        #expect(try await Exports.download(app, tenantURL, key: appKey).status == 404)
    }
}

/// A job that cannot be produced is tried `maxAttempts` times, then its URL says it failed.
@Suite struct FailedExportTests {
    @Test func aJobThatKeepsFailingIsGivenUp() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let segment = await app.request(.post, "/apps/\(created.app.id)/segments", headers: .restKey(created.restKey),
                                        json: ["name": "French", "filters": [["field": "language", "relation": "=", "value": "fr"]]])
        let segmentID = try #require(segment.json?.objectValue?["id"]?.stringValue, "\(segment.text)")
        let url = try SubscriptionExportTests.url(await SubscriptionExportTests.export(app, created, body: ["segment_name": "French"]))
        // The segment goes before the producer reads it.
        #expect(await app.request(.delete, "/apps/\(created.app.id)/segments/\(segmentID)", headers: .restKey(created.restKey))
            .status == 200)
        for _ in 0..<ExportLimits.maxAttempts {
            #expect(try await Exports.produce(app))
        }
        #expect(try await !Exports.produce(app))
        let answer = try await Exports.download(app, url, key: created.restKey)
        #expect(answer.status == 404)
        let name = Exports.path(url).split(separator: "/").last.map(String.init) ?? ""
        #expect(answer.json == ["errors": [.string("export '\(name)' failed; request a new one")]])
        // A failed export no longer counts toward the app's pending ones.
        let pending: Int = try await app.services.database.query("""
            SELECT count(*)::int AS n FROM exports WHERE state = 'pending'
            """)[0].decode("n")
        #expect(pending == 0)
    }
}
