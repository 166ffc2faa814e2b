import Foundation
import Testing
import OpenPushCore
@testable import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Pushes the planner refuses before any transport are counted in `/metrics` under the push
/// service of their device, not under `apns` whatever the platform.
@Suite struct MetricsByPushServiceRefusalTests {
    @Test func anAndroidAndAWebPushRefusedByThePlannerShowUnderTheirOwnService() async throws {
        let setup = try await WebPushDeliveryTests.setup()
        defer { Task { await setup.shutdown() } }
        let droid = try await setup.android(setup.a, token: "fcm-token-refused-by-the-planner")
        let browser = try await setup.browser(setup.a, path: "/push/refused")
        let message = try await setup.send(setup.a)
        // The audience expanded into jobs (as the engine does first), then both devices' tokens
        // die before their job runs: the planner stops them (`Unregistered`), nothing is sent.
        while try await setup.database.transaction({ try NotificationExpansion.expandNextPage(in: $0) }) != .idle {}
        let jobs = try await setup.database.query("SELECT count(*)::int8 AS n FROM delivery_jobs WHERE message_id = \(message)")
            .firstRow().decode("n", as: Int64.self)
        try #require(jobs > 0)
        try await setup.database.query("UPDATE subscriptions SET token_invalid_at = now() WHERE id = ANY(\([droid, browser])::text[])")
        try await setup.run { try await setup.records(message).count == 2 }
        let records = try await setup.records(message)
        #expect(records[droid]?.state == "error" && records[droid]?.reason == "Unregistered")
        #expect(records[browser]?.state == "error" && records[browser]?.reason == "Unregistered")
        #expect(setup.fcm.counters.sends == 0)
        #expect(setup.web.received().isEmpty)
        let series = setup.harness.app.services.metrics.render().split(separator: "\n").filter { $0.hasPrefix("openpush_pushes_total{") }
        #expect(series == [
            #"openpush_pushes_total{kind="device",state="error",reason="Unregistered",service="fcm"} 1"#,
            #"openpush_pushes_total{kind="device",state="error",reason="Unregistered",service="webpush"} 1"#,
        ])
    }
}
