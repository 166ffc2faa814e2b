import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// OneSignal's `notification_types`: a device a backend unsubscribes (`-2`) through the
/// user-model routes is not sent to — the send answers as for a disabled device — and is again
/// once subscribed (`1`). Another app's device with the same token keeps its state.
@Suite struct SubscriptionNotificationTypesDeliveryTests {
    static func send(_ harness: DeliveryHarness, _ app: CreatedApp, to id: String) async throws -> JSONObject {
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: [
            "app_id": .string(app.app.id), "contents": ["en": "Kick-off"], "include_subscription_ids": [.string(id)]])
        try #require(response.status == 200, "\(response.text)")
        return try #require(response.json?.objectValue)
    }

    @Test func anUnsubscribedDeviceIsNotPushedAndIsOnceResubscribed() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        let other = try await harness.app.createApp()
        let token = Registry.token(0x7e1)
        for created in [app, other] {
            let user = await harness.app.request(.post, "/apps/\(created.app.id)/users", headers: .restKey(created.restKey),
                                                 json: ["identity": ["external_id": "fan"]])
            try #require(user.status == 201)
        }
        let response = await harness.app.request(
            .post, "/apps/\(app.app.id)/users/by/external_id/fan/subscriptions", headers: .restKey(app.restKey),
            json: ["subscription": ["type": "iOSPush", "token": .string(token), "notification_types": -2]])
        #expect(response.status == 201)
        let view = try #require(response.json?.objectValue?["subscription"]?.objectValue)
        #expect(view["enabled"] == false)
        #expect(view["notification_types"] == -2)
        let id = try #require(view["id"]?.stringValue)
        let otherID = try await harness.app.deviceID(other, ["token": .string(token), "external_id": "fan"])

        let refused = try await Self.send(harness, app, to: id)
        #expect(refused == ["id": "", "errors": ["All included players are not subscribed"]])
        _ = try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)

        let resubscribed = await harness.app.request(.patch, "/apps/\(app.app.id)/subscriptions/\(id)",
                                                     headers: .restKey(app.restKey),
                                                     json: ["subscription": ["notification_types": 1]])
        #expect(resubscribed.json?.objectValue?["enabled"] == true)
        let sent = try await Self.send(harness, app, to: id)
        #expect(sent["id"]?.stringValue?.isEmpty == false)
        _ = try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [token])

        // The other app's device with that token was never unsubscribed.
        let otherView = try #require(await harness.app.subscription(other, otherID).json?.objectValue)
        #expect(otherView["enabled"] == true)
        #expect(otherView["notification_types"] == 1)
    }
}
