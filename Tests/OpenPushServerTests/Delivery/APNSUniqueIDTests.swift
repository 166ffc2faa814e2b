import Foundation
import Testing
import APNs
import APNsSimulator
import Crypto
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// APNs' sandbox answers carry `apns-unique-id`, which Apple's Push Notifications Console looks
/// up: the simulator playing the sandbox sends one, the delivery record keeps it and the
/// per-device deliveries route shows it; a production answer has none, and its record no field.
@Suite struct APNSUniqueIDTests {
    @Test func theSandboxAnswersIDIsRecordedAndShownAndProductionHasNone() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        // A second simulator plays the sandbox endpoint; the harness's own stays production.
        let key = try P256SigningKey(pem: harness.p8)
        let sandbox = try APNSSimulator(.init(port: 0, providerKeys: ["KEYID00001": key.publicKeyDER], sandbox: true))
        try sandbox.start()
        defer { sandbox.stop() }
        let client = try APNSClient(configuration: APNSClientConfiguration(
            productionURL: harness.simulator.endpoint, sandboxURL: sandbox.endpoint, requestTimeout: 10))
        let engine = DeliveryEngine(services: harness.app.services, client: client, settings: DeliveryHarness.quickSettings(),
                                    logger: .discarding())
        defer { Task { await engine.stop(); await client.shutdown() } }

        let created = harness.created
        let sandboxToken = String(repeating: "5a", count: 32), productionToken = String(repeating: "9b", count: 32)
        let sandboxDevice = try await harness.app.deviceID(created, ["token": .string(sandboxToken), "environment": "sandbox"])
        let productionDevice = try await harness.app.deviceID(created, ["token": .string(productionToken),
                                                                        "environment": "production"])
        let messageID = try await NotificationDeliveriesTests.send(harness)
        while try await engine.runOnce() > 0 {}

        let sandboxPush = try #require(sandbox.accepted().first)
        #expect(sandboxPush.deviceToken == sandboxToken)
        let uniqueID = try #require(sandboxPush.uniqueID)
        #expect(uniqueID == uniqueID.lowercased())
        #expect(UUID(uuidString: uniqueID) != nil)
        #expect(harness.simulator.accepted().map(\.deviceToken) == [productionToken])
        #expect(harness.simulator.accepted().first?.uniqueID == nil)

        let records = try NotificationDeliveriesTests.records(await NotificationDeliveriesTests.deliveries(harness, messageID))
        let byDevice = Dictionary(uniqueKeysWithValues: records.map { ($0["subscription_id"]?.stringValue ?? "", $0) })
        #expect(byDevice[sandboxDevice]?["state"] == "accepted")
        #expect(byDevice[sandboxDevice]?["apns_unique_id"] == .string(uniqueID))
        #expect(byDevice[productionDevice]?["state"] == "accepted")
        #expect(byDevice[productionDevice]?.keys.contains("apns_unique_id") == false)

        // A refusal from the sandbox carries one too, and its record keeps it.
        let deadToken = "dead" + String(repeating: "0", count: 60)
        let deadDevice = try await harness.app.deviceID(created, ["token": .string(deadToken), "environment": "sandbox"])
        let second = try await NotificationDeliveriesTests.send(harness)
        while try await engine.runOnce() > 0 {}
        let again = try NotificationDeliveriesTests.records(await NotificationDeliveriesTests.deliveries(harness, second))
        let dead = try #require(again.first { $0["subscription_id"] == .string(deadDevice) })
        #expect(dead["apns_status"] == 410)
        #expect(dead["apns_unique_id"]?.stringValue.flatMap(UUID.init(uuidString:)) != nil)
        #expect(again.first { $0["subscription_id"] == .string(productionDevice) }?.keys.contains("apns_unique_id") == false)
    }
}
