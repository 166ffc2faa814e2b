import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Issue 37, item 1, end to end: while app A's worst template is rendered for its audience (200
/// devices, six messages at once), app B's Live Activity update still goes out, HTTP keeps
/// answering, and A's notifications complete with every record written. Heavy: it renders 1,200
/// texts to their budget's end.
@Suite struct TemplateIsolationTests {
    /// Cheap without a recipient, so it is accepted; over budget for each of A's recipients, who
    /// carry a 1,000-byte `big` tag: their budget of comparisons each.
    static let worst = #"""
        {%- assign s = big | append: subscription.id -%}
        {%- for i in (1..2000) %}{% if s contains "zz" %}{% endif %}{% endfor -%}
        Hi
        """#

    static func count(_ harness: DeliveryHarness, _ sql: PostgresQuery) async throws -> Int {
        try await NotificationRoutesTests.count(harness, sql)
    }

    @Test func anotherAppsLiveActivityUpdateIsNotHeldBehindAnAppsWorstTemplate() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.loops = 8
        settings.appJobsInFlight = 6
        settings.leaseSeconds = 30
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let a = harness.created
        let b = try await harness.app.createApp(AppSettings(name: "B", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                            apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        try await NotificationRoutesTests.seed(harness, 200)
        try await harness.app.services.database.query("""
            UPDATE subscriptions SET tags = jsonb_build_object('big', repeat('a', 1000)) WHERE app_id = \(a.app.id)
            """)
        let bToken = String(repeating: "2b", count: 32)
        try await DeliveryTenancyTests.userWithActivity(harness, b, email: "b@b.example", token: String(repeating: "02", count: 32),
                                                        updateToken: bToken)
        var messages: [String] = []
        for _ in 0..<6 {
            let sent = await NotificationRoutesTests.post(harness, [
                "included_segments": ["Subscribed Users"], "contents": ["en": .string(Self.worst)],
            ])
            try #require(sent.status == 200, "\(sent.text)")
            messages.append(try #require(sent.json?.objectValue?["id"]?.stringValue))
        }
        harness.engine.start()
        // A's jobs are leased: their texts are being rendered.
        let total = 6 * 200
        let outer = ContinuousClock.now + .seconds(300)
        while try await Self.count(harness, "SELECT count(*)::int AS n FROM delivery_jobs WHERE app_id = \(a.app.id) AND leased_by IS NOT NULL") == 0 {
            try #require(ContinuousClock.now < outer, "A's jobs were never leased")
            try await Task.sleep(for: .milliseconds(5))
        }
        let sentAt = ContinuousClock.now
        let update = await harness.app.request(.post, "/apps/\(b.app.id)/live_activities/game-1/notifications",
                                               headers: .restKey(b.restKey),
                                               json: ["event": "update", "name": "n", "event_updates": ["home": 1],
                                                      "headings": ["en": "Goal"], "contents": ["en": "1-0"]])
        try #require(update.status == 201, "\(update.text)")
        var latency: Duration?
        var aRecordsThen = 0
        var answered = 0
        while latency == nil, ContinuousClock.now < outer {
            if harness.simulator.accepted().contains(where: { $0.deviceToken == bToken }) {
                latency = ContinuousClock.now - sentAt
                aRecordsThen = try await Self.count(harness, "SELECT count(*)::int AS n FROM deliveries WHERE app_id = \(a.app.id)")
                break
            }
            // HTTP keeps answering, A's reads as B's.
            let view = await harness.app.request(.get, "/notifications/\(messages[0])", headers: .restKey(a.restKey),
                                                 query: ["app_id": a.app.id])
            #expect(view.status == 200)
            answered += 1
            try await Task.sleep(for: .milliseconds(5))
        }
        let waited = try #require(latency, "B's update never reached APNs")
        // B did not wait for A: it went while A's texts were still being rendered.
        #expect(aRecordsThen < total, "B's update waited \(waited) until A was done")
        // A completes: every recipient recorded, each over budget and not sent.
        while try await Self.count(harness, "SELECT count(*)::int AS n FROM deliveries WHERE app_id = \(a.app.id)") < total {
            try #require(ContinuousClock.now < outer, "A's notifications did not complete")
            let view = await harness.app.request(.get, "/notifications/\(messages[5])", headers: .restKey(a.restKey),
                                                 query: ["app_id": a.app.id])
            #expect(view.status == 200)
            try await Task.sleep(for: .milliseconds(100))
        }
        let completed = ContinuousClock.now - sentAt
        // Promptly, measured against A on the same machine in the same run, since load slows
        // both alike: B took 3–29% of the time A took after B's send (0.5–5.6 s against
        // 8–23 s); a B that waited for A would take all of it.
        #expect(waited * 2 < completed, "B's update waited \(waited); A completed \(completed) after B's send")
        #expect(try await Self.count(harness, """
            SELECT count(*)::int AS n FROM deliveries
            WHERE app_id = \(a.app.id) AND state = 'error' AND error_reason = 'TemplateBudgetExceeded'
            """) == total)
        #expect(!harness.simulator.accepted().contains { $0.deviceToken != bToken })
        print("TemplateIsolationTests: B waited \(waited); A completed \(completed) after B's send; \(answered) reads answered")
    }
}
