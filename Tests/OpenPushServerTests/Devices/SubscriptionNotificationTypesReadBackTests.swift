import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// OneSignal's `notification_types` reads back as a backend sent it (iOS's permission bits, one of
/// OneSignal's negative reasons), on every view of the device, for as long as it agrees with
/// whether pushes go out; `enabled` sent alone, or a device that changes it itself, reads back as
/// 1 or -2.
@Suite struct SubscriptionNotificationTypesReadBackTests {
    static func shown(_ test: TestApp, _ app: CreatedApp, _ id: String) async throws -> (rest: JSONValue?, user: JSONValue?) {
        let rest = await test.subscription(app, id).json?.objectValue?["notification_types"]
        let user = await test.request(.get, "/apps/\(app.app.id)/users/by/external_id/u-nt", headers: .restKey(app.restKey))
        let devices = try #require(user.json?.objectValue?["subscriptions"]?.arrayValue).compactMap(\.objectValue)
        return (rest, devices.first { $0["id"] == .string(id) }?["notification_types"])
    }

    static func patch(_ test: TestApp, _ app: CreatedApp, _ id: String, _ fields: JSONObject) async -> TestResponse {
        await test.request(.patch, "/apps/\(app.app.id)/subscriptions/\(id)", headers: .restKey(app.restKey),
                           json: ["subscription": .object(fields)])
    }

    @Test func theValueSentIsReadBackWhileItAgreesWithEnabled() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        try await SubscriptionOneSignalRoutesTests.user(test, app, ["external_id": "u-nt"])
        let token = Registry.token(0xe7)
        let created = await test.request(.post, SubscriptionOneSignalRoutesTests.userPath(app, "u-nt"), headers: .restKey(app.restKey),
                                         json: SubscriptionOneSignalRoutesTests.apple(token, ["notification_types": 15]))
        #expect(created.status == 201, "\(created.text)")
        let view = try #require(created.json?.objectValue?["subscription"]?.objectValue)
        #expect(view["notification_types"] == 15 && view["enabled"] == true)
        let id = try #require(view["id"]?.stringValue)
        #expect(try await Self.shown(test, app, id) == (15, 15))

        #expect(await Self.patch(test, app, id, ["notification_types": -31]).json?.objectValue?["notification_types"] == -31)
        #expect(try await Self.shown(test, app, id) == (-31, -31))
        #expect(await test.subscription(app, id).json?.objectValue?["enabled"] == false)

        // The device subscribes itself again: its own word wins.
        #expect(await test.registerDevice(app, ["token": .string(token), "enabled": true]).status == 200)
        #expect(try await Self.shown(test, app, id) == (1, 1))

        // By token, then `enabled` alone: no reason is left to read back.
        let byToken = await test.request(.patch, "/apps/\(app.app.id)/subscriptions_by_token/iOSPush/\(token)",
                                         headers: .restKey(app.restKey), json: ["subscription": ["notification_types": -3]])
        #expect(byToken.status == 200)
        #expect(try await Self.shown(test, app, id) == (-3, -3))
        #expect(await Self.patch(test, app, id, ["enabled": true]).status == 200)
        #expect(await Self.patch(test, app, id, ["enabled": false]).status == 200)
        #expect(try await Self.shown(test, app, id) == (-2, -2))
    }
}
