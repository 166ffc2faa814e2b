import Foundation
import Testing
import APNs
import APNsSimulator
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `apns_push_type_override` `voip`, `location`, `pushtotalk`, `complication` and
/// `fileprovider` sent through the routes and the delivery engine to the APNs simulator: each
/// push reaches the device's token of its kind with Apple's headers, a device without one is
/// counted, and a token APNs rejects is deleted alone (with the 410 timestamp rule).
@Suite struct ExtraTokenDeliveryTests {
    static let watchBundleID = DeliveryHarness.bundleID + ".watchkitapp"

    /// A 64-digit hex token starting with `prefix`.
    static func token(_ prefix: String, _ n: Int) -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", n)
    }

    /// Registers `token` as the device's token of `kind`, the way the registration route stores
    /// it; `age` back-dates its registration.
    static func register(_ harness: DeliveryHarness, _ subscriptionID: String, appID: String? = nil, _ kind: ExtraTokenKind,
                         _ token: String, age: Int = 0) async throws {
        try await harness.app.services.database.query("""
            INSERT INTO device_push_tokens (subscription_id, app_id, kind, token, updated_at)
            VALUES (\(subscriptionID), \(appID ?? harness.created.app.id), \(kind.rawValue), \(token),
                    now() - make_interval(secs => \(Double(age))))
            """)
    }

    static func send(_ harness: DeliveryHarness, _ body: JSONObject) async throws -> String {
        let sent = await NotificationRoutesTests.post(harness, body)
        try #require(sent.status == 200, "send: \(sent.text)")
        return try #require(sent.json?.objectValue?["id"]?.stringValue)
    }

    /// Subscription id → (state, reason) of the message's records.
    static func records(_ harness: DeliveryHarness, _ messageID: String) async throws -> [String: [String?]] {
        let rows = try await harness.app.services.database.query("""
            SELECT subscription_id, state, error_reason, token_kind FROM deliveries WHERE message_id = \(messageID)
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map { row in
            (try row.decode("subscription_id", as: String.self),
             [try row.decode("state", as: String?.self), try row.decode("error_reason", as: String?.self),
              try row.decode("token_kind", as: String?.self)])
        })
    }

    static func extraTokens(_ harness: DeliveryHarness, _ subscriptionID: String) async throws -> Set<String> {
        Set(try await harness.app.services.database.query("""
            SELECT kind FROM device_push_tokens WHERE subscription_id = \(subscriptionID)
            """).map { try $0.decode("kind", as: String.self) })
    }

    @Test func eachKindGoesToItsTokenWithApplesHeadersAndADeviceWithoutOneIsCounted() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let database = harness.app.services.database
        try await database.query("UPDATE apps SET apns_watch_bundle_id = \(Self.watchBundleID) WHERE id = \(appID)")
        // `full` holds every kind; `sandbox` a VoIP token only, in the sandbox; `none` no extra
        // token; `android` an Android device.
        let full = try await harness.app.insertSubscription(appID: appID, token: Self.token("0a", 1))
        let sandbox = try await harness.app.insertSubscription(appID: appID, token: Self.token("0a", 2))
        let none = try await harness.app.insertSubscription(appID: appID, token: Self.token("0a", 3))
        let android = try await harness.app.insertSubscription(appID: appID, token: "fcm-registration-token-1")
        try await database.query("UPDATE subscriptions SET environment = 'sandbox' WHERE id = \(sandbox)")
        try await database.query("UPDATE subscriptions SET platform = 'android' WHERE id = \(android)")
        for (index, kind) in ExtraTokenKind.allCases.enumerated() {
            try await Self.register(harness, full, kind, Self.token("e\(index)", 1))
        }
        try await Self.register(harness, sandbox, .voip, Self.token("e0", 2))
        // A second app's device with a VoIP token: the first app's send never reaches it.
        let other = try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                                apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        let stranger = try await harness.app.insertSubscription(appID: other.app.id, token: Self.token("0b", 1))
        try await Self.register(harness, stranger, appID: other.app.id, .voip, Self.token("e0", 9))

        let audience: JSONValue = [.string(full), .string(sandbox), .string(none), .string(android)]
        let fileProvider: JSONObject = ["container-identifier": "NSFileProviderWorkingSetContainerItemIdentifier"]
        let bodies: [(ExtraTokenKind, JSONObject)] = [
            (.voip, ["data": ["call_id": "c-1", "caller": "Ada"]]),
            (.location, ["data": ["request": "r-1"]]),
            (.pushToTalk, ["data": ["speaker": "Bob"]]),
            (.complication, ["priority": 5]),
            (.fileProvider, ["data": .object(fileProvider)]),
        ]
        var messages: [ExtraTokenKind: String] = [:]
        for (kind, fields) in bodies {
            var body = fields
            body["apns_push_type_override"] = .string(kind.rawValue)
            body["include_subscription_ids"] = audience
            messages[kind] = try await Self.send(harness, body)
        }
        _ = try await harness.drain()

        let accepted = harness.simulator.accepted()
        let byToken = Dictionary(grouping: accepted, by: \.deviceToken)
        #expect(Set(byToken.keys) == Set(ExtraTokenKind.allCases.indices.map { Self.token("e\($0)", 1) } + [Self.token("e0", 2)]),
                "each kind's token only: no ordinary token, no other app's")
        #expect(accepted.count == 6)
        func push(_ kind: ExtraTokenKind, device: Int = 1) throws -> APNSSimulator.RecordedPush {
            let index = try #require(ExtraTokenKind.allCases.firstIndex(of: kind))
            return try #require(byToken[Self.token("e\(index)", device)]?.first)
        }
        let bundle = DeliveryHarness.bundleID
        let expected: [(ExtraTokenKind, String, String, JSONValue)] = [
            (.voip, bundle + ".voip", "10", ["call_id": "c-1", "caller": "Ada"]),
            (.location, bundle + ".location-query", "10", ["request": "r-1"]),
            (.pushToTalk, bundle + ".voip-ptt", "10", ["speaker": "Bob"]),
            (.complication, Self.watchBundleID + ".complication", "5", [:]),
            (.fileProvider, bundle + ".pushkit.fileprovider", "5", .object(fileProvider)),
        ]
        for (kind, topic, priority, payload) in expected {
            let sent = try push(kind)
            #expect(sent.header("apns-push-type") == kind.rawValue)
            #expect(sent.header("apns-topic") == topic, "\(kind)")
            #expect(sent.header("apns-priority") == priority, "\(kind)")
            #expect(sent.payloadJSON == payload, "\(kind)")
            let expiration = try #require(sent.header("apns-expiration").flatMap(Int.init))
            if kind == .voip || kind == .pushToTalk {
                #expect(expiration == 0, "\(kind): tried once")
            } else {
                #expect(expiration > Int(Date().timeIntervalSince1970) + 2 * 24 * 3600, "\(kind): the default ttl")
            }
        }
        #expect(try push(.voip, device: 2).header("apns-push-type") == "voip")

        for (kind, messageID) in messages {
            let records = try await Self.records(harness, messageID)
            let kindText = kind.rawValue
            #expect(records[full] == ["accepted", nil, kindText], "\(kind)")
            #expect(records[none] == ["suppressed", "no_token", kindText], "\(kind)")
            #expect(records[android] == ["suppressed", "no_token", kindText], "\(kind): Apple-only")
            #expect(records[sandbox] == (kind == .voip ? ["accepted", nil, kindText] : ["suppressed", "no_token", kindText]))
            let view = try await AlertPrivacyTests.view(harness, messageID)
            #expect(view["suppressed"]?.objectValue?["no_token"] == (kind == .voip ? 2 : 3), "\(kind)")
        }
    }

    @Test func fieldsAKindRefusesAndAnOversizedVoIPPayloadAre400() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let device = try await harness.app.insertSubscription(appID: appID, token: Self.token("0a", 1))
        try await Self.register(harness, device, .voip, Self.token("e0", 1))
        let location = await NotificationRoutesTests.post(harness, [
            "include_subscription_ids": [.string(device)], "apns_push_type_override": "location",
            "headings": ["en": "h"], "ios_sound": "a.caf",
        ])
        #expect(location.status == 400)
        #expect(location.json == ["errors": [.string(NotificationSendParser.PushTypeMessages.refused("headings", .location)),
                                             .string(NotificationSendParser.PushTypeMessages.refused("ios_sound", .location))]])
        let files = await NotificationRoutesTests.post(harness, ["include_subscription_ids": [.string(device)],
                                                                 "apns_push_type_override": "fileprovider"])
        #expect(files.json == ["errors": [.string(NotificationSendParser.PushTypeMessages.containerIdentifier)]])

        // `{"k":"…"}`: the text plus 8 bytes.
        let payload = { (bytes: Int) -> JSONValue in ["k": .string(String(repeating: "x", count: bytes - 8))] }
        let tooLarge = await NotificationRoutesTests.post(harness, ["include_subscription_ids": [.string(device)],
                                                                    "apns_push_type_override": "voip", "data": payload(5121)])
        #expect(tooLarge.status == 400)
        #expect(tooLarge.json == ["errors": ["the VoIP payload is 5121 bytes: at most 5120 bytes"]])
        let count = try await harness.app.services.database.query("SELECT count(*)::int AS n FROM messages")
        #expect(try count.firstRow().decode("n", as: Int.self) == 0, "nothing refused was stored")

        _ = try await Self.send(harness, ["include_subscription_ids": [.string(device)], "apns_push_type_override": "voip",
                                          "data": payload(5120)])
        _ = try await harness.drain()
        let sent = try #require(harness.simulator.accepted().first)
        #expect(sent.payload.count == 5120 && sent.deviceToken == Self.token("e0", 1))
    }

    @Test func aRejectedExtraTokenIsDeletedAloneWithItsEvent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        harness.simulator.setBehaviour(.init(status: 400, reason: "DeviceTokenNotForTopic"), forTokenPrefix: "d7f0")
        let ordinary = Self.token("0a", 1)
        let device = try await harness.app.insertSubscription(appID: appID, token: ordinary)
        try await Self.register(harness, device, .voip, Self.token("bad0", 1))
        try await Self.register(harness, device, .pushToTalk, Self.token("d7f0", 1))
        try await Self.register(harness, device, .location, Self.token("e1", 1))
        // Another app's device holding the same VoIP token keeps it.
        let other = try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                                apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        let stranger = try await harness.app.insertSubscription(appID: other.app.id, token: Self.token("0b", 1))
        try await Self.register(harness, stranger, appID: other.app.id, .voip, Self.token("bad0", 1))

        let voip = try await Self.send(harness, ["include_subscription_ids": [.string(device)], "apns_push_type_override": "voip"])
        let talk = try await Self.send(harness, ["include_subscription_ids": [.string(device)],
                                                 "apns_push_type_override": "pushtotalk"])
        _ = try await harness.drain()
        #expect(try await Self.records(harness, voip)[device] == ["error", "BadDeviceToken", "voip"])
        #expect(try await Self.records(harness, talk)[device] == ["error", "DeviceTokenNotForTopic", "pushtotalk"])
        #expect(try await Self.extraTokens(harness, device) == ["location"], "only the rejected kinds are gone")
        #expect(try await Self.extraTokens(harness, stranger) == ["voip"])
        let subscription = try await harness.app.services.database.query("""
            SELECT token, token_invalid_at IS NULL AS valid, enabled FROM subscriptions WHERE id = \(device)
            """).firstRow()
        #expect(try subscription.decode("token", as: String.self) == ordinary)
        #expect(try subscription.decode("valid", as: Bool.self) && subscription.decode("enabled", as: Bool.self))
        let events = try await EventProducersTests.events(harness, "token.invalidated")
        #expect(Set(events.compactMap { $0.data["token_kind"]?.stringValue }) == ["voip", "pushtotalk"])
        #expect(events.allSatisfy { $0.data["subscription_id"]?.stringValue == device })
        #expect(Set(events.compactMap { $0.data["reason"]?.stringValue }) == ["BadDeviceToken", "DeviceTokenNotForTopic"])

        // The ordinary token still gets ordinary pushes.
        harness.simulator.clearAccepted()
        _ = try await Self.send(harness, ["include_subscription_ids": [.string(device)], "contents": ["en": "still here"]])
        _ = try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [ordinary])
    }

    @Test func a410KeepsAnExtraTokenRegisteredAfterApplesTimestampAndDeletesAnOlderOne() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        // APNs says these tokens stopped being valid an hour ago.
        harness.simulator.setBehaviour(.unregistered(since: .seconds(3600)), forTokenPrefix: "dead01")
        let fresh = try await harness.app.insertSubscription(appID: appID, token: Self.token("0a", 1))
        let stale = try await harness.app.insertSubscription(appID: appID, token: Self.token("0a", 2))
        for (index, kind) in ExtraTokenKind.allCases.enumerated() {
            try await Self.register(harness, fresh, kind, Self.token("dead01", 10 + index))
            // Registered two hours ago, before APNs' timestamp.
            try await Self.register(harness, stale, kind, Self.token("dead01", 20 + index), age: 7200)
        }
        for kind in ExtraTokenKind.allCases {
            var body: JSONObject = ["include_subscription_ids": [.string(fresh), .string(stale)],
                                    "apns_push_type_override": .string(kind.rawValue)]
            if kind == .fileProvider { body["data"] = ["container-identifier": "root"] }
            let messageID = try await Self.send(harness, body)
            _ = try await harness.drain()
            let records = try await Self.records(harness, messageID)
            #expect(records[fresh] == ["error", "Unregistered", .some(kind.rawValue)])
            #expect(records[stale] == ["error", "Unregistered", .some(kind.rawValue)])
        }
        let all = Set(ExtraTokenKind.allCases.map(\.rawValue))
        #expect(try await Self.extraTokens(harness, fresh) == all, "registered after the timestamp: kept")
        #expect(try await Self.extraTokens(harness, stale) == [], "registered before it: deleted")
        let fine = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM subscriptions WHERE id IN (\(fresh), \(stale)) AND token_invalid_at IS NULL
            """).firstRow().decode("n", as: Int.self)
        #expect(fine == 2, "the devices' ordinary tokens are untouched")
        let events = try await EventProducersTests.events(harness, "token.invalidated")
        #expect(Set(events.map { $0.data["subscription_id"]?.stringValue }) == [stale])
        #expect(Set(events.compactMap { $0.data["token_kind"]?.stringValue }) == all)
    }
}
