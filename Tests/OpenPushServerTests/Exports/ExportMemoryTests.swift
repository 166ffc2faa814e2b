import Foundation
import Testing
import Crypto
import Gzip
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// An app of 100,000 subscriptions exported by a served `openpush serve` child: the file holds
/// every one, and the process's peak memory (`VmHWM`, what the kernel saw at its highest) grows
/// by no more than a few pages' worth while it produces the file — it never holds the app's
/// rows. A child process, not an in-process measure: the test runner's own heap (other suites,
/// the fixtures) would drown the figure. Heavy: it belongs in the Makefile's `HEAVY_SUITES`.
@Suite struct ExportMemoryTests {
    static let subscriptions = 100_000
    /// Far below what holding the rows takes (libpq's result of 100,000 rows, their CSV and its
    /// gzip are each several times this), far above a page's worth of rows and a chunk.
    static let allowedGrowth = 24 * 1024 * 1024

    static func peakRSS(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
        return kilobytes * 1024
    }

    static func seed(_ pool: PostgresPool, appID: String, count: Int, prefix: String) async throws {
        _ = try await pool.transaction { connection in
            try connection.query("""
                INSERT INTO subscriptions (id, app_id, token, external_id, tags, language, first_session_at, last_session_at)
                SELECT \(prefix) || lpad(i::text, 7, '0'), \(appID), md5(\(prefix) || i) || md5(\(prefix) || (i + 1)),
                       'user-' || i, jsonb_build_object('plan', 'pro', 'level', i::text), 'en', now(), now()
                FROM generate_series(1, \(count)) AS i
                """)
        }
    }

    /// Waits on the job's state in the database, not on the file's route, so the measure is
    /// taken before any download loads the file.
    static func waitUntilReady(_ pool: PostgresPool, exportID: String) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            let state: String = try await pool.query("SELECT state FROM exports WHERE id = \(exportID)")[0].decode("state")
            if state == "ready" { return }
            try #require(state == "pending", "export \(exportID) is \(state)")
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("export \(exportID) was not ready after 10 minutes")
    }

    static func request(_ baseURL: String, _ created: CreatedApp) async throws -> (id: String, url: String) {
        let response = try await Curl.run(["-X", "POST", "-H", "Authorization: Key \(created.restKey)",
                                           "\(baseURL)/players/csv_export?app_id=\(created.app.id)"])
        #expect(response.status == 200, "\(response.text)")
        let url = try #require(try JSONValue.parse(response.body).objectValue?["csv_file_url"]?.stringValue)
        #expect(url.hasPrefix(baseURL + "/apps/"), "the URL is on the server's own origin: \(url)")
        let file = try #require(url.split(separator: "/").last)
        return (String(file.dropLast(".csv.gz".count)), url)
    }

    @Test func aLargeAppsExportKeepsTheProducersMemoryFlat() async throws {
        let database = try await TestDatabase.create()
        let pool = database.makePool(size: 2)
        let warmApp = try await AppStore.create(AppSettings(name: "Warm-up"), now: WallClock.now(), in: pool)
        let largeApp = try await AppStore.create(AppSettings(name: "Large"), now: WallClock.now(), in: pool)
        try await Self.seed(pool, appID: warmApp.app.id, count: 3_000, prefix: "sub_warm_")
        try await Self.seed(pool, appID: largeApp.app.id, count: Self.subscriptions, prefix: "sub_large_")
        let server = try OpenPushProcess(["serve", "--no-migrate"], environment: [
            "OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_LISTEN": "127.0.0.1:0",
        ])
        let port = try await server.waitForPort()
        let baseURL = "http://127.0.0.1:\(port)"
        defer {
            server.signal(SIGTERM)
            Task { _ = try? await server.waitForExit(); await pool.close() }
        }

        // A small export first: the producer's connections, buffers and code are all in place.
        let warm = try await Self.request(baseURL, warmApp)
        try await Self.waitUntilReady(pool, exportID: warm.id)
        let before = try Self.peakRSS(of: server.processIdentifier)

        let large = try await Self.request(baseURL, largeApp)
        try await Self.waitUntilReady(pool, exportID: large.id)
        let after = try Self.peakRSS(of: server.processIdentifier)
        #expect(after - before < Self.allowedGrowth,
                "peak RSS grew \((after - before) / 1024) KiB (\(before / 1024) → \(after / 1024) KiB) producing \(Self.subscriptions) rows")

        let file = try await Curl.run(["-H", "Authorization: Key \(largeApp.restKey)", large.url], maxTime: 120)
        #expect(file.status == 200)
        let text = String(decoding: try Gunzip.decompress(file.body), as: UTF8.self)
        let lines = text.split(separator: "\r\n")
        #expect(lines.count == Self.subscriptions + 1)
        #expect(lines.first == "id,identifier,external_user_id,device_type,language,timezone,session_count,created_at,last_active,invalid_identifier,tags")
        #expect(!text.contains("sub_warm_"))
        let chunks: Int = try await pool.query("""
            SELECT count(*)::int AS n FROM export_chunks WHERE export_id = \(large.id)
            """)[0].decode("n")
        #expect(chunks > 1, "the file was stored as it was written, in chunks")
    }
}
