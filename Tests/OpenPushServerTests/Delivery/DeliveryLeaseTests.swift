import Foundation
import Testing
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Issue 37, item 1: a job whose lease another worker took is not sent by this one — planning
/// stops and nothing of it is pushed or recorded here.
@Suite struct DeliveryLeaseTests {
    /// Under budget (about 0.85 MiB of work per recipient, 0.4 MiB without one) and each
    /// recipient's own (it reads `subscription.id`): planning 500 of them takes seconds.
    static let costly = #"""
        {%- assign s = subscription.id | append: "xxxxxxxxxx" -%}
        {%- for i in (1..7) %}{% assign s = s | append: s %}{% endfor -%}
        {%- for i in (1..300) %}{% if s contains "zz" %}{% endif %}{% endfor -%}
        Hi
        """#

    @Test func aJobWhoseLeaseIsTakenStopsSending() async throws {
        var settings = DeliveryHarness.quickSettings()
        // Renewed every 0.2 s: the loss is seen long before 500 recipients are planned.
        settings.leaseSeconds = 0.6
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        #expect(LiquidTemplate.validate(Self.costly) == nil)
        try await NotificationRoutesTests.seed(harness, 500)
        let response = await NotificationRoutesTests.post(harness, [
            "included_segments": ["Subscribed Users"], "contents": ["en": .string(Self.costly)],
        ])
        try #require(response.status == 200, "\(response.text)")
        let messageID = try #require(response.json?.objectValue?["id"]?.stringValue)
        // The page is expanded into one job of 500.
        #expect(try await harness.engine.runOnce() == 1)
        let database = harness.app.services.database
        let run = Task { try await harness.engine.runOnce() }
        // As soon as this worker leases the job, another one takes it.
        var stolen = false
        let deadline = ContinuousClock.now + .seconds(120)
        while !stolen, ContinuousClock.now < deadline {
            stolen = try await database.query("""
                UPDATE delivery_jobs SET leased_by = 'another-worker', leased_until = now() + interval '1 hour'
                WHERE message_id = \(messageID) AND leased_by IS NOT NULL AND leased_by <> 'another-worker'
                """).affectedRows == 1
            if !stolen { try await Task.sleep(for: .milliseconds(5)) }
        }
        try #require(stolen)
        _ = try await run.value
        #expect(harness.simulator.accepted().count == 0)
        #expect(try await NotificationRoutesTests.count(harness, """
            SELECT count(*)::int AS n FROM deliveries WHERE message_id = \(messageID)
            """) == 0)
        // The job is the other worker's, untouched.
        #expect(try await NotificationRoutesTests.count(harness, """
            SELECT count(*)::int AS n FROM delivery_jobs WHERE message_id = \(messageID) AND leased_by = 'another-worker'
            """) == 1)
    }
}
