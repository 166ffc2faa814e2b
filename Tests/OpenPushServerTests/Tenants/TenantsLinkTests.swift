import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport

/// `POST /v1/apps/{app_id}/devices/link` and the `X-OP-Device-Key` every `/v1` route then needs.
@Suite struct TenantsLinkTests {
    static let missingDeviceKey: JSONValue = ["detail": .string(NativeDevice.missingDeviceKey)]

    @Test func registerLinkThenUseTheDeviceKey() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant()
        let token = Registry.token(1)
        let subscriptionID = try await demo.app.deviceID(demo.shared, ["token": .string(token)])
        // Typed by a person: lower case, with a dash.
        let typed = stride(from: 0, to: acme.linkCode.count, by: 4)
            .map { acme.linkCode.dropFirst($0).prefix(4).lowercased() }.joined(separator: "-")
        #expect(typed.count == 14)
        let linked = await demo.link(token: token.uppercased(), code: typed)
        #expect(linked.status == 200)
        #expect(linked.headers["Cache-Control"] == "no-store")
        let body = try #require(linked.json?.objectValue)
        #expect(body.keys.sorted() == ["device_key", "subscription_id", "tenant_id"])
        #expect(body["tenant_id"] == .string(acme.id))
        #expect(body["subscription_id"] == .string(subscriptionID))
        let deviceKey = try #require(body["device_key"]?.stringValue)
        #expect(deviceKey.hasPrefix("dev_"))
        let stored = try await demo.app.services.database.query("""
            SELECT tenant_id, device_key_digest FROM subscriptions WHERE id = \(subscriptionID)
            """).firstRow()
        #expect(try stored.decode("tenant_id", as: String?.self) == acme.id)
        #expect(try stored.decode("device_key_digest", as: [UInt8]?.self) == KeyMaterial.digest(deviceKey))

        // A Live Activity route: the device key opens it; none or a wrong one is a 401.
        let activity: JSONValue = ["token": .string(token), "activity_id": "order-1", "activity_type": "Delivery",
                                   "update_token": .string(String(repeating: "c", count: 64))]
        let accepted = await demo.native("/live-activities", activity, deviceKey: deviceKey)
        #expect(accepted.status == 200)
        #expect(accepted.json?.objectValue?["created"] == true)
        for key in [nil, "dev_wrong", demo.shared.sdkKey] as [String?] {
            let refused = await demo.native("/live-activities", activity, deviceKey: key)
            #expect(refused.status == 401)
            #expect(refused.json == Self.missingDeviceKey)
        }
        // The tenant reaches the device through its REST key, and its activity through the send route.
        #expect(await demo.app.request(.get, "/apps/\(demo.appID)/subscriptions/\(subscriptionID)",
                                       headers: .restKey(acme.restKey)).status == 200)
        let update = await demo.app.request(.post, "/apps/\(demo.appID)/live_activities/order-1/notifications",
                                            headers: .restKey(acme.restKey), json: TenantsIsolationTests.update)
        #expect(update.status == 201)
        #expect(update.headers["OpenPush-Audience-Total"] == "1")
    }

    /// Every `/v1` route of a shared app wants the device key of the token's device.
    @Test func everyNativeRouteNeedsTheDeviceKeyOnASharedApp() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant()
        let device = try await demo.linkedDevice(1, to: acme)
        let token = JSONValue.string(device.token)
        let routes: [(String, JSONValue)] = [
            ("/subscriptions", ["token": token, "tags": ["owner": "mallory"]]),
            ("/live-activities", ["token": token, "activity_id": "a-1", "update_token": .string(String(repeating: "d", count: 64))]),
            ("/live-activities/push-to-start", ["token": token, "activity_type": "Delivery",
                                                "push_to_start_token": .string(String(repeating: "e", count: 64))]),
            ("/live-activities/push-to-start/remove", ["token": token, "activity_type": "Delivery"]),
            ("/live-activities/a-1/click", ["token": token]),
            ("/live-activities/a-1/end", ["token": token]),
            ("/devices/link", ["token": token, "code": .string(acme.linkCode)]),
            ("/subscriptions/retire", ["token": token]),
        ]
        for (path, body) in routes {
            for key in [nil, "dev_wrong"] as [String?] {
                let refused = await demo.native(path, body, deviceKey: key)
                #expect(refused.status == 401, "\(path)")
                #expect(refused.json == Self.missingDeviceKey, "\(path)")
            }
        }
        // With the key every route does its work (the click has no push to attribute to: 404; the
        // link issues a new key, which the retire then needs).
        var deviceKey = device.deviceKey
        for (path, body) in routes {
            let response = await demo.native(path, body, deviceKey: deviceKey)
            #expect(response.status == (path.hasSuffix("/click") ? 404 : 200), "\(path): \(response.text)")
            if path == "/devices/link" { deviceKey = try #require(response.json?.objectValue?["device_key"]?.stringValue) }
        }
        let retired = try await demo.app.services.database.query("""
            SELECT retired_at IS NOT NULL AS retired FROM subscriptions WHERE id = \(device.subscriptionID)
            """).firstRow()
        #expect(try retired.decode("retired", as: Bool.self))
    }

    /// On an ordinary app the header means nothing: neither needed nor checked.
    @Test func anOrdinaryAppIgnoresTheHeader() async throws {
        let app = try await TestApp.make()
        let ordinary = try await app.createApp()
        let token = Registry.token(1)
        _ = try await app.deviceID(ordinary, ["token": .string(token)])
        let body: JSONValue = ["token": .string(token), "activity_id": "a-1", "update_token": .string(String(repeating: "c", count: 64))]
        for key in [nil, "dev_anything"] as [String?] {
            let response = await app.request(.post, "/v1/apps/\(ordinary.app.id)/live-activities",
                                             headers: SharedDemo.native(ordinary.sdkKey, key), json: body)
            #expect(response.status == 200)
        }
        let link = await app.request(.post, "/v1/apps/\(ordinary.app.id)/devices/link", headers: .sdkKey(ordinary.sdkKey),
                                     json: ["token": .string(token), "code": "ABCDEFGH"])
        #expect(link.status == 400)
        #expect(link.json == ["detail": "this app is not a shared demo app"])
    }

    @Test func relinkingNeedsTheCurrentKeyAndIssuesANewOne() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant("Acme")
        let globex = try await demo.createTenant("Globex")
        let device = try await demo.linkedDevice(1, to: acme)
        // Another holder of the SDK key cannot take the device over.
        for key in [nil, "dev_wrong"] as [String?] {
            let stolen = await demo.link(token: device.token, code: globex.linkCode, deviceKey: key)
            #expect(stolen.status == 401)
            #expect(stolen.json == Self.missingDeviceKey)
        }
        let moved = await demo.link(token: device.token, code: globex.linkCode, deviceKey: device.deviceKey)
        #expect(moved.status == 200)
        #expect(moved.json?.objectValue?["tenant_id"] == .string(globex.id))
        let newKey = try #require(moved.json?.objectValue?["device_key"]?.stringValue)
        #expect(newKey != device.deviceKey)
        let body: JSONValue = ["token": .string(device.token)]
        #expect(await demo.native("/subscriptions", body, deviceKey: device.deviceKey).status == 401)
        #expect(await demo.native("/subscriptions", body, deviceKey: newKey).status == 200)
        // The device now belongs to the other tenant.
        let path = "/apps/\(demo.appID)/subscriptions/\(device.subscriptionID)"
        #expect(await demo.app.request(.get, path, headers: .restKey(globex.restKey)).status == 200)
        #expect(await demo.app.request(.get, path, headers: .restKey(acme.restKey)).status == 403)
    }

    @Test func linkErrors() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant()
        let token = Registry.token(1)
        _ = try await demo.app.deviceID(demo.shared, ["token": .string(token)])

        let unknownToken = await demo.link(token: Registry.token(2), code: acme.linkCode)
        #expect(unknownToken.status == 404)
        #expect(unknownToken.json == ["detail": "unknown device token for this app"])
        for code in ["ZZZZZZZZZZZZ", "ZZZZZZZZ", "nonsense", ""] where code != acme.linkCode {
            let unknownCode = await demo.link(token: token, code: code)
            #expect(unknownCode.status == (code.isEmpty ? 400 : 404))
            #expect(unknownCode.json == (code.isEmpty ? ["detail": "code is required"] : ["detail": "unknown link code"]))
        }
        let badBody = await demo.app.request(.post, "/v1/apps/\(demo.appID)/devices/link", headers: .sdkKey(demo.shared.sdkKey),
                                             json: ["token": "x yz", "colour": "red"])
        #expect(badBody.status == 400)
        // The token may be an Android device's (opaque): only its characters are checked here.
        #expect(badBody.json == ["detail": "token must be printable ASCII without spaces (! to ~); code is required; unknown field 'colour'"])
        let notObject = await demo.app.request(.post, "/v1/apps/\(demo.appID)/devices/link", headers: .sdkKey(demo.shared.sdkKey),
                                               json: ["a"])
        #expect(notObject.json == ["detail": "the request body must be a JSON object"])

        // A retired device is unknown.
        #expect(await demo.native("/subscriptions/retire", ["token": .string(token)], deviceKey: nil).status == 401)
        try await demo.app.services.database.query("UPDATE subscriptions SET retired_at = now() WHERE token = \(token)")
        let retired = await demo.link(token: token, code: acme.linkCode)
        #expect(retired.status == 404)
        #expect(retired.json == ["detail": "unknown device token for this app"])

        // Keys: a wrong SDK key, another app's SDK key, an unknown app.
        let other = try await demo.app.createApp(AppSettings(name: "Other", sharedDemo: true))
        for sdkKey in ["sdk_wrong", other.sdkKey] {
            let refused = await demo.link(token: token, code: acme.linkCode, sdkKey: sdkKey)
            #expect(refused.status == 401)
            #expect(refused.json == ["detail": .string(Authentication.badSDKKey)])
        }
        let unknownApp = await demo.app.request(.post, "/v1/apps/app_nope/devices/link", headers: .sdkKey(demo.shared.sdkKey),
                                                json: ["token": .string(token), "code": .string(acme.linkCode)])
        #expect(unknownApp.status == 404)
        #expect(unknownApp.json == ["detail": "unknown app 'app_nope'"])
    }

    /// One app's code never links a device of another app, and its device keys open nothing there.
    @Test func codesAndDeviceKeysStayInTheirApp() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant()
        let device = try await demo.linkedDevice(1, to: acme)
        let other = try await demo.app.createApp(AppSettings(name: "Other", sharedDemo: true))
        let otherToken = Registry.token(2)
        _ = try await demo.app.deviceID(other, ["token": .string(otherToken)])
        let crossed = await demo.app.request(.post, "/v1/apps/\(other.app.id)/devices/link", headers: .sdkKey(other.sdkKey),
                                             json: ["token": .string(otherToken), "code": .string(acme.linkCode)])
        #expect(crossed.status == 404)
        #expect(crossed.json == ["detail": "unknown link code"])
        // The same device token registered in the other app is another device, without a key.
        _ = try await demo.app.deviceID(other, ["token": .string(device.token)])
        let foreignKey = await demo.app.request(.post, "/v1/apps/\(other.app.id)/subscriptions/retire",
                                                headers: SharedDemo.native(other.sdkKey, device.deviceKey),
                                                json: ["token": .string(device.token)])
        #expect(foreignKey.status == 401)
    }
}
