import Crypto
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Browser subscriptions on `POST /v1/apps/{app_id}/subscriptions` (`platform` `web`): the
/// endpoint is checked as an SSRF path (https, a known push service's host, no userinfo, no
/// private address), the keys' shapes and the point on P-256; the browser's OneSignal type comes
/// from the endpoint's host; views and OneSignal's routes show it; Apple-only routes refuse it.
@Suite struct WebSubscriptionRoutesTests {
    /// RFC 8291 Appendix A's receiver key and authentication secret: a real browser's shapes.
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    static let endpoints: [(String, String)] = [
        ("https://fcm.googleapis.com/fcm/send/dXk9Ab:APA91bH_one", "ChromePush"),
        ("https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk_one", "FirefoxPush"),
        ("https://web.push.apple.com/QGuQyavXutnMa_one", "SafariPush"),
        ("https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD_one", "EdgePush"),
    ]

    static func web(_ endpoint: String, _ extra: JSONObject = [:]) -> JSONObject {
        var body: JSONObject = ["platform": "web", "token": .string(endpoint), "web_p256": .string(p256dh), "web_auth": .string(auth)]
        for (key, value) in extra { body[key] = value }
        return body
    }

    static func detail(_ response: TestResponse) -> String { response.json?.objectValue?["detail"]?.stringValue ?? response.text }

    static func storedKeys(_ app: TestApp, _ id: String) async throws -> [String?] {
        let rows = try await app.services.database.query("SELECT web_p256, web_auth, web_type FROM subscriptions WHERE id = \(id)")
        return [try rows[0].decode("web_p256"), try rows[0].decode("web_auth"), try rows[0].decode("web_type")]
    }

    @Test func eachBrowsersEndpointRegistersWithItsType() async throws {
        let clock = RegistryClock()
        let app = try await TestApp.make(configure: { $0.webhooksAllowPrivate = false }, now: clock.now)
        let created = try await app.createApp()
        let other = try await app.createApp()
        for (endpoint, type) in Self.endpoints {
            let response = await app.registerDevice(created, Self.web(endpoint, [
                "tags": ["plan": "pro"], "external_id": "u-web", "language": "de", "timezone": "Europe/Berlin",
                "quiet_hours": ["start": "22:00", "end": "07:00"],
            ]))
            #expect(response.status == 201, "\(endpoint): \(response.text)")
            let id = try #require(response.json?.objectValue?["id"]?.stringValue)
            let view = try #require(await app.subscription(created, id).json?.objectValue)
            #expect(view["platform"] == "web")
            #expect(view["type"] == .string(type))
            #expect(view["token"] == .string(endpoint))
            #expect(view["tags"] == ["plan": "pro"] && view["language"] == "de" && view["external_id"] == "u-web")
            #expect(view["quiet_hours"] != .null)
            #expect(try await Self.storedKeys(app, id) == [Self.p256dh, Self.auth, type])
        }
        // OneSignal's get_user lists them with their types.
        let user = await app.request(.get, "/apps/\(created.app.id)/users/by/external_id/u-web", headers: .restKey(created.restKey))
        let types = try #require(user.json?.objectValue?["subscriptions"]?.arrayValue).compactMap { $0.objectValue?["type"]?.stringValue }
        #expect(Set(types) == Set(Self.endpoints.map(\.1)))
        // The other app has none of them.
        let count = try await app.services.database.query("SELECT count(*)::int AS n FROM subscriptions WHERE app_id = \(other.app.id)")
        #expect(try count[0].decode("n", as: Int.self) == 0)
    }

    @Test func theSameEndpointReRegistersWithNewKeysAndTheHostDecidesTheType() async throws {
        let app = try await TestApp.make(configure: { $0.webhooksAllowPrivate = false })
        let created = try await app.createApp()
        let endpoint = Self.endpoints[1].0
        let id = try await app.deviceID(created, Self.web(endpoint, ["type": "ChromePush"]))
        #expect(try await Self.storedKeys(app, id)[2] == "FirefoxPush")

        let newAuth = Base64URL.encode(Array(repeating: 9, count: 16))
        let pair = try P256KeyPair.generate()
        let newKey = Base64URL.encode(pair.publicKey)
        let again = await app.registerDevice(created, Self.web(endpoint, ["web_p256": .string(newKey), "web_auth": .string(newAuth)]))
        #expect(again.status == 200, "\(again.text)")
        #expect(again.json == ["id": .string(id), "created": false])
        #expect(try await Self.storedKeys(app, id) == [newKey, newAuth, "FirefoxPush"])

        // A token refresh (previous_token) moves to the new endpoint.
        let moved = await app.registerDevice(created, Self.web(Self.endpoints[0].0, ["previous_token": .string(endpoint)]))
        #expect(moved.status == 201, "\(moved.text)")
        #expect(try #require(await app.subscription(created, id).json?.objectValue)["retired"] == true)
    }

    @Test func aHostOnlyTheSettingNamesTakesTheSentTypeOrChrome() async throws {
        let app = try await TestApp.make(configure: {
            $0.webPushHosts = [.exact("push.example.test"), .suffix("notify.windows.com")]
            $0.webhooksAllowPrivate = false
        })
        let created = try await app.createApp()
        let sent = try await app.deviceID(created, Self.web("https://push.example.test/a", ["type": "SafariPush"]))
        #expect(try await Self.storedKeys(app, sent)[2] == "SafariPush")
        let unsent = try await app.deviceID(created, Self.web("https://push.example.test/b"))
        #expect(try await Self.storedKeys(app, unsent)[2] == "ChromePush")
        let edge = try await app.deviceID(created, Self.web("https://db5p.notify.windows.com/w/?token=x"))
        #expect(try await Self.storedKeys(app, edge)[2] == "EdgePush")
        // The replaced list no longer holds Chrome's push service.
        let chrome = await app.registerDevice(created, Self.web(Self.endpoints[0].0))
        #expect(chrome.status == 400)
        #expect(Self.detail(chrome) == "token must be on a known push service's host (push.example.test, *.notify.windows.com)")
        let badType = await app.registerDevice(created, Self.web("https://push.example.test/c", ["type": "AndroidPush"]))
        #expect(badType.status == 400)
        #expect(Self.detail(badType).hasPrefix("type 'AndroidPush' is not a browser's subscription type"))
    }

    @Test func badKeysAreRefusedNamingTheField() async throws {
        let app = try await TestApp.make(configure: { $0.webhooksAllowPrivate = false })
        let created = try await app.createApp()
        let endpoint = Self.endpoints[0].0
        let offCurve = Base64URL.encode([4] + Array(repeating: 1, count: 64))
        let compressed = Base64URL.encode([2] + Array(repeating: 1, count: 32))
        let cases: [(JSONObject, String)] = [
            (["web_p256": "not base64url!"], "web_p256 must be base64url of the browser's 65-byte uncompressed P-256 public key"),
            (["web_p256": .string(compressed)], "web_p256 must be base64url of the browser's 65-byte uncompressed P-256 public key (p256dh), got 33 bytes"),
            (["web_p256": .string(offCurve)], "web_p256 is not a point on the P-256 curve"),
            (["web_auth": .string(Base64URL.encode(Array(repeating: 1, count: 15)))],
             "web_auth must be base64url of the subscription's 16-byte authentication secret"),
            (["web_auth": "%%%"], "web_auth must be base64url of the subscription's 16-byte authentication secret"),
            (["web_p256": .null], "web_p256"),
            (["web_auth": 16], "web_auth"),
        ]
        for (change, message) in cases {
            var body = Self.web(endpoint)
            for (key, value) in change { if value == .null { body[key] = nil } else { body[key] = value } }
            let response = await app.registerDevice(created, body)
            #expect(response.status == 400, "\(change): \(response.text)")
            #expect(Self.detail(response).hasPrefix(message), "\(Self.detail(response))")
        }
        let rows = try await app.services.database.query("SELECT count(*)::int AS n FROM subscriptions")
        #expect(try rows[0].decode("n", as: Int.self) == 0)
    }

    @Test func endpointsOutsideThePushServicesAreRefused() async throws {
        let app = try await TestApp.make(configure: {
            $0.webPushHosts = WebPushHostPattern.defaults + [.exact("127.0.0.1"), .exact("localhost"), .exact("10.1.2.3")]
            $0.webhooksAllowPrivate = false
        })
        let created = try await app.createApp()
        let cases: [(String, String)] = [
            ("http://fcm.googleapis.com/fcm/send/x", "token must be an https:// push subscription endpoint"),
            ("https://127.0.0.1/push/x", "token must not point at a private, loopback or link-local address"),
            ("https://10.1.2.3/push/x", "token must not point at a private, loopback or link-local address"),
            ("https://localhost/push/x", "token must not point at a private, loopback or link-local address"),
            ("https://user:pw@fcm.googleapis.com/fcm/send/x", "token must be a URL without spaces, control characters or credentials"),
            ("https://evil.example.com/fcm/send/x", "token must be on a known push service's host"),
            ("https://fcm.googleapis.com.evil.example/x", "token must be on a known push service's host"),
            ("https://notify.windows.com/w/x", "token must be on a known push service's host"),
            ("fcm.googleapis.com/fcm/send/x", "token must be an https:// push subscription endpoint"),
            ("https://fcm.googleapis.com/" + String(repeating: "a", count: 2100), "token must be a push subscription endpoint of at most"),
        ]
        for (endpoint, message) in cases {
            let response = await app.registerDevice(created, Self.web(endpoint))
            #expect(response.status == 400, "\(endpoint): \(response.text)")
            #expect(Self.detail(response).hasPrefix(message), "\(endpoint): \(Self.detail(response))")
        }
        let rows = try await app.services.database.query("SELECT count(*)::int AS n FROM subscriptions")
        #expect(try rows[0].decode("n", as: Int.self) == 0)

        // Where webhooks may reach private addresses (tests, openpush dev), so may endpoints.
        let open = try await TestApp.make(configure: { $0.webPushHosts = [.exact("127.0.0.1")] })
        let local = try await open.createApp()
        let simulator = await open.registerDevice(local, Self.web("http://127.0.0.1:8443/push/x"))
        #expect(simulator.status == 201, "\(simulator.text)")
    }

    @Test func appleOnlyRoutesRefuseABrowserSayingWhy() async throws {
        let app = try await TestApp.make(configure: { $0.webhooksAllowPrivate = false })
        let created = try await app.createApp()
        let endpoint = Self.endpoints[2].0
        _ = try await app.deviceID(created, Self.web(endpoint))
        let headers = HTTPHeaders.sdkKey(created.sdkKey)
        let hex = String(repeating: "ab", count: 32)
        let activity = await app.request(.post, "/v1/apps/\(created.app.id)/live-activities", headers: headers, json: [
            "token": .string(endpoint), "activity_id": "order-1", "update_token": .string(hex),
        ])
        #expect(activity.status == 404)
        #expect(Self.detail(activity).contains("browser subscription: Live Activities are Apple-only"))
        let extra = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/tokens", headers: headers, json: [
            "token": .string(endpoint), "kind": "voip", "push_token": .string(hex),
        ])
        #expect(extra.status == 404)
        #expect(Self.detail(extra).contains("browser subscription"))
        let widget = await app.registerDevice(created, Self.web(endpoint, ["widget_push_token": .string(hex)]))
        #expect(widget.status == 400)
        #expect(Self.detail(widget) == SubscriptionRegistration.widgetTokenNotForBrowsers)
    }

    @Test func oneSignalsCreateSubscriptionTakesTheBrowserTypesWithTheSameChecks() async throws {
        let app = try await TestApp.make(configure: { $0.webhooksAllowPrivate = false })
        let created = try await app.createApp()
        let user = await app.request(.post, "/apps/\(created.app.id)/users", headers: .restKey(created.restKey),
                                     json: ["identity": ["external_id": "u-1"]])
        #expect(user.status == 201)
        let path = "/apps/\(created.app.id)/users/by/external_id/u-1/subscriptions"
        let endpoint = Self.endpoints[3].0
        let made = await app.request(.post, path, headers: .restKey(created.restKey), json: ["subscription": [
            "type": "ChromePush", "token": .string(endpoint), "web_p256": .string(Self.p256dh), "web_auth": .string(Self.auth),
        ]])
        #expect(made.status == 201, "\(made.text)")
        let subscription = try #require(made.json?.objectValue?["subscription"]?.objectValue)
        // The endpoint is Edge's push service: its type, whatever was sent.
        #expect(subscription["type"] == "EdgePush")
        let id = try #require(subscription["id"]?.stringValue)
        #expect(try await Self.storedKeys(app, id) == [Self.p256dh, Self.auth, "EdgePush"])

        let offCurve = Base64URL.encode([4] + Array(repeating: 1, count: 64))
        let refused = await app.request(.post, path, headers: .restKey(created.restKey), json: ["subscription": [
            "type": "FirefoxPush", "token": "https://evil.example.com/x", "web_p256": .string(offCurve), "web_auth": .string(Self.auth),
        ]])
        #expect(refused.status == 400)
        let errors = try #require(refused.json?.objectValue?["errors"]?.arrayValue).compactMap(\.stringValue)
        #expect(errors.contains { $0.hasPrefix("subscription.token must be on a known push service's host") }, "\(errors)")
        #expect(errors.contains("subscription.web_p256 is not a point on the P-256 curve"), "\(errors)")
        let missing = await app.request(.post, path, headers: .restKey(created.restKey), json: ["subscription": [
            "type": "SafariPush", "token": .string(Self.endpoints[2].0),
        ]])
        #expect(missing.status == 400)
        #expect(missing.text.contains("web_p256"))
    }
}
