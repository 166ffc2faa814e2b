import Foundation
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// Wake-ups proportional to work: a loop that ran a batch wakes another only when its claim's
/// bounds may have left due jobs behind, so at a trickle a one-user message costs the claim that
/// takes it and the sending loop's own look for when to sleep, not a third claim that finds
/// nothing.
@Suite struct DeliveryWakeupTests {
    @Test func aClaimSaysWhetherItsBoundsMayHaveLeftJobs() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp().app.id
        let other = try await app.createApp().app.id
        let claim = { (maxJobs: Int, maxRecipients: Int) in
            try await app.services.database.withConnection {
                try DeliveryQueue.claimNext(worker: "w", appCap: 10, maxJobs: maxJobs, maxRecipients: maxRecipients, in: $0)
            }
        }
        // Three one-user jobs, all taken: nothing left. The other app's job is not this claim's to find.
        for _ in 0..<3 { try await DeliveryQueueTests.queue(app, appID: first, lane: .bulk, size: 1) }
        let all = try await claim(128, 500)
        #expect(all.jobs.count == 3 && !all.mayHaveLeftJobs(maxJobs: 128, maxRecipients: 500))
        // Bounded by the job count: two of five taken, the rest left.
        for _ in 0..<5 { try await DeliveryQueueTests.queue(app, appID: other, lane: .bulk, size: 1) }
        let two = try await claim(2, 500)
        #expect(two.jobs.count == 2 && two.mayHaveLeftJobs(maxJobs: 2, maxRecipients: 500))
        // Bounded by recipients: a fan-out's full job is a batch alone.
        let third = try await app.createApp().app.id
        try await DeliveryQueueTests.queue(app, appID: third, lane: .urgent, jobs: 2, size: 4)
        let fanOut = try await claim(128, 4)
        #expect(fanOut.jobs.map(\.recipients.count) == [4] && fanOut.mayHaveLeftJobs(maxJobs: 128, maxRecipients: 4))
        #expect(!DeliveryQueue.Claim(jobs: [], expansionDue: false).mayHaveLeftJobs(maxJobs: 1, maxRecipients: 1))
    }

    @Test func aTrickleOfOneUserMessagesCostsTwoClaimsEach() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.loops = 4
        settings.batchJobs = DeliveryQueue.defaultBatchJobs
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        var devices: [String] = []
        for n in 0..<12 {
            devices.append(try await harness.app.insertSubscription(
                appID: app.app.id, token: "c1" + String(format: "%062x", n)))
        }
        harness.engine.start()
        // Every loop's first look, at an empty queue.
        #expect(try await DeliveryResilienceTests.waitUntil(.seconds(60)) { harness.engine.claims >= settings.loops })
        let start = harness.engine.claims
        for (n, device) in devices.enumerated() {
            let response = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: [
                "app_id": .string(app.app.id), "include_subscription_ids": [.string(device)], "contents": ["en": "Shipped"],
            ])
            let messageID = try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
            #expect(try await DeliveryResilienceTests.waitUntil(.seconds(60)) {
                try await harness.app.services.database.query("""
                    SELECT completed_event_at IS NOT NULL AS done FROM messages WHERE id = \(messageID)
                    """).firstRow().decode("done", as: Bool.self)
            })
            // The claim that took it and the sending loop's next look.
            #expect(try await DeliveryResilienceTests.waitUntil(.seconds(60)) { harness.engine.claims >= start + 2 * (n + 1) })
        }
        #expect(harness.simulator.acceptedCount == devices.count)
        let perMessage = Double(harness.engine.claims - start) / Double(devices.count)
        // Waking another loop after each batch made it 3 (that loop's claim found nothing).
        #expect(perMessage <= 2.2, "\(perMessage) claims per message")
    }
}
