import Foundation
import Testing
import APNs
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// Issue 13's privacy rules against the simulator: a device that hides details, ids-only
/// pushes, and never a blank notification.
@Suite struct AlertPrivacyTests {
    typealias Routes = NotificationRoutesTests

    /// Registers a device through the SDK route, with `hide_details` when given.
    @discardableResult
    static func register(_ harness: DeliveryHarness, app: CreatedApp? = nil, token: String, hideDetails: Bool? = nil,
                         tags: JSONObject? = nil) async throws -> String {
        let app = app ?? harness.created
        var body: JSONObject = ["token": .string(token)]
        if let hideDetails { body["hide_details"] = .bool(hideDetails) }
        if let tags { body["tags"] = .object(tags) }
        let response = await harness.app.request(.post, "/v1/apps/\(app.app.id)/subscriptions", headers: .sdkKey(app.sdkKey),
                                                 json: .object(body))
        try #require(response.status == 201 || response.status == 200, "register: \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    /// What each device token received, as its payload object.
    static func payloads(_ harness: DeliveryHarness) -> [String: JSONObject] {
        Dictionary(harness.simulator.accepted().map { ($0.deviceToken, $0.payloadJSON?.objectValue ?? [:]) }, uniquingKeysWith: { $1 })
    }

    static func view(_ harness: DeliveryHarness, _ messageID: String) async throws -> JSONObject {
        let view = await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                             query: ["app_id": harness.created.app.id])
        return try #require(view.json?.objectValue)
    }

    static func messageID(_ response: TestResponse) throws -> String {
        try #require(response.json?.objectValue?["id"]?.stringValue, "send: \(response.text)")
    }

    // MARK: hide_details

    /// One send, one job, two devices: the cache must not hand the hidden device the normal one's
    /// payload (or the other way round).
    @Test func aDeviceThatHidesDetailsGetsThePrivacyTextBesideANormalOneInOneJob() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.register(harness, token: Routes.token(0))
        try await Self.register(harness, token: Routes.token(1), hideDetails: true)
        let sent = await Routes.post(harness, [
            "included_segments": ["Subscribed Users"], "headings": ["en": "Ana wrote"], "subtitle": ["en": "In Lunch"],
            "contents": ["en": "Pizza at noon?"], "privacy_text": ["en": "New message"], "data": ["room": "r1"],
            "apns_alert": ["launch-image": "secret.png"], "summary_arg": "Ana",
        ])
        _ = try Self.messageID(sent)
        // One page expanded into one job of both devices: one batch, one payload cache.
        #expect(try await harness.drain() == 3)
        let payloads = Self.payloads(harness)
        #expect(payloads[Routes.token(0)]?["aps"] == [
            "alert": ["title": "Ana wrote", "subtitle": "In Lunch", "body": "Pizza at noon?", "launch-image": "secret.png",
                      "summary-arg": "Ana"],
        ])
        // No title, no subtitle, nothing else that words it; the app's own data stays.
        #expect(payloads[Routes.token(1)] == ["aps": ["alert": ["body": "New message"]], "room": "r1"])

        // Without a privacy text of its own, the app's default.
        _ = try Self.messageID(await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "Pizza?"]]))
        try await harness.drain()
        let second = harness.simulator.accepted().suffix(2).map { ($0.deviceToken, $0.payloadJSON?.objectValue?["aps"]) }
        #expect(Dictionary(second, uniquingKeysWith: { $1 }) == [
            Routes.token(0): ["alert": ["body": "Pizza?"]],
            Routes.token(1): ["alert": ["body": .string(AlertPrivacy.defaultPrivacyText)]],
        ])
    }

    /// Two apps, each with its own default privacy text, in one drain: each device sees its own
    /// app's text and never the other's.
    @Test func oneAppsDefaultPrivacyTextNeverReachesAnotherAppsDevice() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        var first = AppFields()
        first.defaultPrivacyText = "Alpha has news"
        _ = try await AppStore.update(harness.created.app.id, with: first, now: harness.app.services.now(),
                                      in: harness.app.services.database)
        var settings = AppSettings(name: "Second", apnsP8: harness.p8, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
                                   apnsBundleID: DeliveryHarness.bundleID)
        settings.defaultPrivacyText = "Beta has news"
        let second = try await harness.app.createApp(settings)
        #expect(second.app.defaultPrivacyText == "Beta has news")
        try await Self.register(harness, token: Routes.token(0), hideDetails: true)
        try await Self.register(harness, app: second, token: Routes.token(1), hideDetails: true)
        for app in [harness.created, second] {
            let sent = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: [
                "app_id": .string(app.app.id), "included_segments": ["Subscribed Users"], "contents": ["en": "Secret"],
            ])
            _ = try Self.messageID(sent)
        }
        try await harness.drain()
        let pushes = harness.simulator.accepted()
        let bodies = Dictionary(pushes.map { ($0.deviceToken, String(decoding: $0.payload, as: UTF8.self)) }, uniquingKeysWith: { $1 })
        #expect(Self.payloads(harness)[Routes.token(0)] == ["aps": ["alert": ["body": "Alpha has news"]]])
        #expect(Self.payloads(harness)[Routes.token(1)] == ["aps": ["alert": ["body": "Beta has news"]]])
        #expect(bodies[Routes.token(0)]?.contains("Beta") == false)
        #expect(bodies[Routes.token(1)]?.contains("Alpha") == false)
    }

    // MARK: ids_only

    @Test func anIdsOnlyPushCarriesNoneOfTheMessagesTextsAnywhere() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.register(harness, token: Routes.token(0), tags: ["first_name": "Ana"])
        try await Self.register(harness, token: Routes.token(1), hideDetails: true)
        let secrets = ["Heading secret", "Subtitle secret", "Contents secret", "Ana", "secret-path", "Button secret",
                       "Summary secret", "Argument secret", "secret.png", "Custom secret"]
        let sent = await Routes.post(harness, [
            "included_segments": ["Subscribed Users"], "privacy": "ids_only",
            "headings": ["en": "Heading secret"], "subtitle": ["en": "Subtitle secret"],
            "contents": ["en": "Contents secret for {{ first_name | default: 'Ana' }}"],
            "privacy_text": "You have a new message", "data": ["event_id": "ev-1", "room_id": "r-9"],
            "url": "https://example.com/secret-path", "ios_attachments": ["pic": "https://example.com/secret.png"],
            "buttons": [["id": "reply", "text": "Button secret"]], "summary_arg": "Summary secret",
            "apns_alert": ["loc-key": "MSG", "loc-args": ["Argument secret"]], "custom_data": ["x": "Custom secret"],
            "ios_sound": "ding.caf", "thread_id": "room-r-9",
        ])
        let messageID = try Self.messageID(sent)
        try await harness.drain()
        let pushes = harness.simulator.accepted()
        #expect(pushes.count == 2)
        for push in pushes {
            let text = String(decoding: push.payload, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "\(secret) leaked: \(text)") }
            #expect(push.payloadJSON == [
                "aps": ["alert": ["body": "You have a new message"], "mutable-content": 1, "sound": "ding.caf",
                        "thread-id": "room-r-9"],
                "event_id": "ev-1", "room_id": "r-9",
            ])
        }
        // The texts stay on the server, for the app's own records.
        let view = try await Self.view(harness, messageID)
        #expect(view["privacy"] == "ids_only")
        #expect(view["headings"] == ["en": "Heading secret"])
        #expect(view["privacy_text"] == "You have a new message")
        #expect(view["successful"] == 2)
    }

    @Test func anIdsOnlyMessageNeedsAPrivacyText() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let base: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "x"], "privacy": "ids_only"]
        func errors(_ extra: JSONObject) async -> JSONValue? {
            var body = base
            for (key, value) in extra { body[key] = value }
            return await Routes.post(harness, body).json
        }
        let missing = await errors([:])
        #expect(missing == ["errors": [.string(NotificationSendParser.PrivacyMessages.privacyTextRequired)]])
        #expect(await errors(["privacy_text": " "]) == ["errors": ["privacy_text must not be blank"]])
        #expect(await errors(["privacy_text": ["en": " "]]) == ["errors": [#"privacy_text must include an "en" entry"#]])
        #expect(await errors(["privacy_text": ["fr": "Nouveau"]]) == ["errors": [#"privacy_text must include an "en" entry"#]])
        #expect(await errors(["privacy_text": 5]) == ["errors": ["privacy_text must be a string or an object of strings, got number"]])
        #expect(await errors(["privacy_text": "x", "privacy": "secret"]) == ["errors": ["privacy must be one of: full, ids_only"]])
        let liquid = await errors(["privacy_text": "{{ broken"])
        #expect(liquid?.objectValue?["errors"]?.arrayValue?.first?.stringValue?.hasPrefix("privacy_text: ") == true)
        // A privacy text alone words an ids-only alert; a background push has nothing to word.
        #expect(await Routes.post(harness, ["included_segments": ["Subscribed Users"], "privacy": "ids_only",
                                            "privacy_text": "New"]).status == 200)
        let background = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "content_available": true,
                                                     "privacy_text": "New"])
        #expect(background.json == ["errors": [.string(NotificationSendParser.AppleMessages.backgroundShowsNothing + "privacy_text")]])
        let widgets = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "push_type": "widgets",
                                                  "privacy_text": "New"])
        #expect(widgets.json == ["errors": [.string(NotificationSendParser.Messages.widgetsOnlyReload + "privacy_text")]])
    }

    // MARK: never a blank notification

    @Test func anAlertThatRendersBlankCarriesThePrivacyTextOrIsSuppressed() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.register(harness, token: Routes.token(0), tags: ["nickname": "Ana"])
        let silent = try await Self.register(harness, token: Routes.token(1))
        let blank = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "{{ nickname }}"],
                                                "headings": ["en": "{{ nickname }}"]])
        let blankID = try Self.messageID(blank)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Routes.token(0)])
        #expect(Self.payloads(harness)[Routes.token(0)] == ["aps": ["alert": ["title": "Ana", "body": "Ana"]]])
        let view = try await Self.view(harness, blankID)
        #expect(view["successful"] == 1)
        #expect(view["remaining"] == 0)
        #expect(view["suppressed"]?.objectValue?["blank"] == 1)
        let deliveries = await harness.app.request(.get, "/notifications/\(blankID)/deliveries",
                                                   headers: .restKey(harness.created.restKey),
                                                   query: ["app_id": harness.created.app.id, "state": "suppressed"])
        let records = try #require(deliveries.json?.objectValue?["deliveries"]?.arrayValue)
        #expect(records.count == 1)
        #expect(records.first?.objectValue?["suppressed_reason"] == "blank")
        #expect(records.first?.objectValue?["subscription_id"] == .string(silent))

        // With a privacy text, the blank device gets it (rendered) and the other its own text.
        let fallback = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "{{ nickname }}"],
                                                   "privacy_text": ["en": "Something new{{ nickname }}"]])
        let fallbackID = try Self.messageID(fallback)
        try await harness.drain()
        let latest = harness.simulator.accepted().suffix(2).map { ($0.deviceToken, $0.payloadJSON?.objectValue?["aps"]) }
        #expect(Dictionary(latest, uniquingKeysWith: { $1 }) == [
            Routes.token(0): ["alert": ["body": "Ana"]], Routes.token(1): ["alert": ["body": "Something new"]],
        ])
        #expect(try await Self.view(harness, fallbackID)["suppressed"]?.objectValue?["blank"] == 0)

        // A privacy text that renders blank too is blank.
        let both = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "{{ nickname }}"],
                                               "privacy_text": ["en": "{{ nickname }}"]])
        let bothID = try Self.messageID(both)
        try await harness.drain()
        #expect(try await Self.view(harness, bothID)["suppressed"]?.objectValue?["blank"] == 1)
        #expect(harness.simulator.accepted().count == 4)
    }

    /// A Live Activity update whose alert renders blank goes with its state and no alert; a
    /// start whose alert renders blank is not sent.
    @Test func aLiveActivityAlertIsNeverSentBlank() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let device = String(repeating: "0c", count: 32), updateToken = String(repeating: "2d", count: 32)
        try await Self.register(harness, token: device)
        let registered = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities", headers: .sdkKey(harness.created.sdkKey),
                                                   json: ["token": .string(device), "activity_id": "game-1",
                                                          "activity_type": "Score", "update_token": .string(updateToken)])
        #expect(registered.status == 200)
        // Both updates are to go at once (no coalescing, `PushIntervalsTests` covers it).
        try await harness.app.services.database.query("UPDATE apps SET live_activity_update_interval_seconds = 0 WHERE id = \(appID)")
        let update = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-1/notifications",
                                               headers: .restKey(harness.created.restKey),
                                               json: ["event": "update", "name": "n", "event_updates": ["home": 2],
                                                      "headings": ["en": "{{ nickname }}"], "contents": ["en": "{{ nickname }}"],
                                                      "sound": "goal.caf"])
        #expect(update.status == 201, "\(update.text)")
        #expect(try await harness.drain() == 1)
        let aps = try #require(harness.simulator.accepted().first?.payloadJSON?.objectValue?["aps"]?.objectValue)
        #expect(aps["alert"] == nil)
        #expect(aps["content-state"]?.objectValue?["home"] == 2)

        // hide_details words the alert with the app's default text, without a title.
        let patched = await harness.app.request(.patch, "/apps/\(appID)/subscriptions/\(try await Self.subscriptionID(harness, device))",
                                                headers: .restKey(harness.created.restKey),
                                                json: ["subscription": ["hide_details": true]])
        #expect(patched.json?.objectValue?["hide_details"] == true)
        let hidden = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-1/notifications",
                                               headers: .restKey(harness.created.restKey),
                                               json: ["event": "update", "name": "n", "event_updates": ["home": 3],
                                                      "headings": ["en": "Goal by Ana"], "contents": ["en": "2-1"]])
        #expect(hidden.status == 201)
        try await harness.drain()
        let hiddenAPS = try #require(harness.simulator.accepted().last?.payloadJSON?.objectValue?["aps"]?.objectValue)
        #expect(hiddenAPS["alert"] == ["title": "", "body": .string(AlertPrivacy.defaultPrivacyText)])
    }

    @Test func aLiveActivityStartThatRendersBlankIsSuppressed() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let pts = String(repeating: "1c", count: 32)
        _ = try await DeliveryEngineTests.startableDevice(harness, pts: pts)
        let response = await DeliveryEngineTests.start(harness, headings: "{{ nickname }}",
                                                       body: ["contents": ["en": "{{ nickname }}"]])
        let messageID = try #require(response.json?.objectValue?["notification_id"]?.stringValue, "\(response.text)")
        #expect(try await harness.drain() == 1)
        #expect(harness.simulator.accepted().isEmpty)
        #expect(try await Self.view(harness, messageID)["suppressed"]?.objectValue?["blank"] == 1)
    }

    static func subscriptionID(_ harness: DeliveryHarness, _ token: String) async throws -> String {
        try await harness.app.services.database.query("SELECT id FROM subscriptions WHERE token = \(token)").firstRow().decode("id")
    }

    // MARK: the settings themselves

    @Test func hideDetailsIsRegisteredPatchedAndShown() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let rest = HTTPHeaders.restKey(harness.created.restKey)
        let id = try await Self.register(harness, token: Routes.token(0))
        #expect(await harness.app.request(.get, "/apps/\(appID)/subscriptions/\(id)", headers: rest).json?
            .objectValue?["hide_details"] == false)
        try await Self.register(harness, token: Routes.token(0), hideDetails: true)
        #expect(await harness.app.request(.get, "/apps/\(appID)/subscriptions/\(id)", headers: rest).json?
            .objectValue?["hide_details"] == true)
        // A refresh that does not send it keeps it.
        try await Self.register(harness, token: Routes.token(0))
        #expect(await harness.app.request(.get, "/apps/\(appID)/subscriptions/\(id)", headers: rest).json?
            .objectValue?["hide_details"] == true)
        let patched = await harness.app.request(.patch, "/apps/\(appID)/subscriptions/\(id)", headers: rest,
                                                json: ["hide_details": false])
        #expect(patched.status == 200)
        #expect(patched.json?.objectValue?["hide_details"] == false)
        let wrong = await harness.app.request(.patch, "/apps/\(appID)/subscriptions/\(id)", headers: rest,
                                              json: ["subscription": ["hide_details": "yes"]])
        #expect(wrong.status == 400)
        #expect(wrong.json == ["errors": ["subscription.hide_details must be a boolean, got string"]])
        let native = await harness.app.request(.post, "/v1/apps/\(appID)/subscriptions", headers: .sdkKey(harness.created.sdkKey),
                                               json: ["token": .string(Routes.token(0)), "hide_details": 1])
        #expect(native.status == 400)
        #expect(native.json == ["detail": "hide_details must be a boolean, got number"])
    }
}
