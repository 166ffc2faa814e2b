import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// One valid request to one registered route, whose inputs the wrong-input test replaces one
/// at a time.
struct RouteCase: Sendable {
    var method: HTTPMethod
    var template: String
    /// A valid value for every `{parameter}` of the template.
    var pathValues: [String: String] = [:]
    var query: [String: String] = [:]
    var headers: HTTPHeaders = [:]
    /// Headers the route reads beyond authentication; each is tried with every wrong value.
    var readHeaders: [String] = []
    var body: JSONObject?
    /// The send routes allow 60 requests a minute per app: each input gets an app of its own.
    var freshSendApp = false

    /// The template with its parameters filled in, `overrides` already percent-encoded.
    func path(_ overrides: [String: String] = [:]) -> String {
        template.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return String(segment) }
            let name = String(segment.dropFirst().dropLast())
            return overrides[name] ?? WrongValue.percentEncoded(pathValues[name] ?? "")
        }.joined(separator: "/")
    }

    var pathParameters: [String] {
        template.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
    }
}

/// Where a wrong value goes in a body: a top-level field, a key of an object field, or a key of
/// the first object in an array field. `name` is how a message names it.
struct BodyField: Sendable, CustomStringConvertible {
    var key: String
    var nestedKey: String?
    var inArray = false

    var description: String {
        guard let nestedKey else { return key }
        return inArray ? "\(key)[0].\(nestedKey)" : "\(key).\(nestedKey)"
    }

    /// Every top-level field, then every key one level down.
    static func all(in body: JSONObject) -> [BodyField] {
        var fields: [BodyField] = []
        for (key, value) in body {
            fields.append(BodyField(key: key))
            switch value {
            case .object(let object):
                fields += object.keys.map { BodyField(key: key, nestedKey: $0) }
            case .array(let items):
                if case .object(let first)? = items.first {
                    fields += first.keys.map { BodyField(key: key, nestedKey: $0, inArray: true) }
                }
            default:
                break
            }
        }
        return fields
    }

    static let marker = "__wrong_value_goes_here__"

    /// The body as JSON text with this field's value replaced by `json` verbatim.
    func text(of body: JSONObject, with json: String) -> [UInt8] {
        var body = body
        switch (body[key], nestedKey) {
        case (_, nil):
            body[key] = .string(Self.marker)
        case (.object(var object)?, let nested?):
            object[nested] = .string(Self.marker)
            body[key] = .object(object)
        case (.array(var items)?, let nested?):
            if case .object(var first)? = items.first {
                first[nested] = .string(Self.marker)
                items[0] = .object(first)
            }
            body[key] = .array(items)
        default:
            break
        }
        let text = JSONValue.object(body).serialized
        return Array(text.replacingOccurrences(of: "\"\(Self.marker)\"", with: json).utf8)
    }
}

/// The apps, devices and records the valid requests refer to.
struct WrongInputWorld: Sendable {
    static let organizationKey = "org-key-for-wrong-input-tests"
    static let activityType = "Delivery"
    static let activityID = "act-1"
    static let externalID = "u-1"

    let app: TestApp
    /// The app most routes address; its devices are never retired or changed by the table.
    let main: CreatedApp
    /// The app `PUT /apps/{id}` changes (a `shared_demo: true` would change how `main` answers).
    let spare: CreatedApp
    let shared: CreatedApp
    let deviceToken: String
    /// A device the REST subscription routes may change.
    let restSubscriptionID: String
    let extraKeyID: String
    let segmentID: String
    let notificationID: String
    let templateID: String
    let webhookID: String
    /// A broadcast channel of `main`, written straight to its table: creating one through the
    /// route would need APNs.
    let channelID: String
    let tenantID: String
    let sharedDeviceToken: String
    let linkCode: String
    /// The deployment's organization (`GET /organizations/{id}/audit_logs`).
    let organizationID: String

    var organization: HTTPHeaders { ["Authorization": "Key \(Self.organizationKey)"] }

    static func make() async throws -> WrongInputWorld {
        let app = try await TestApp.make(configure: { $0.organizationAPIKey = organizationKey })
        let main = try await app.createApp()
        let spare = try await app.createApp()
        let shared = try await app.createApp(AppSettings(name: "Shared", apnsBundleID: "com.example.shared", sharedDemo: true))
        let token = Registry.token(1)
        try await prepareSendable(app, main, token: token)
        let restSubscriptionID = try await app.deviceID(main, ["token": .string(Registry.token(2))])
        let organization: HTTPHeaders = ["Authorization": "Key \(organizationKey)"]
        let key = try await created(app.request(.post, "/apps/\(main.app.id)/auth/tokens", headers: organization,
                                                json: ["name": "extra"]), "id")
        let segment = try await created(app.request(.post, "/apps/\(main.app.id)/segments", headers: .restKey(main.restKey), json: [
            "name": "Level 10", "filters": [["field": "tag", "key": "level", "relation": ">", "value": "10"]],
        ]), "id")
        let notification = try await created(app.request(.post, "/notifications", headers: .restKey(main.restKey), json: [
            "app_id": .string(main.app.id), "contents": ["en": "Hello"], "included_segments": ["Subscribed Users"],
        ]), "id")
        let template = try await created(app.request(.post, "/templates", headers: .restKey(main.restKey), json: [
            "app_id": .string(main.app.id), "name": "Shipped", "headings": ["en": "Order {{ message.custom_data.order }}"],
            "contents": ["en": "Hi"], "data": ["screen": "orders"], "ios_sound": "a.caf",
        ]), "id")
        let webhook = try await created(app.request(.post, "/apps/\(main.app.id)/webhooks", headers: .restKey(main.restKey),
                                                    json: ["url": "https://hooks.example.com/h", "events": ["*"]]), "id")
        _ = try await created(app.request(.post, "/apps/\(main.app.id)/users", headers: .restKey(main.restKey),
                                          json: ["identity": ["external_id": .string(externalID), "crm": "c-1"]]), "identity")
        let channel = try await addChannel(app, main)
        let tenant = await app.request(.post, "/apps/\(shared.app.id)/tenants", headers: organization, json: ["name": "Acme"])
        let tenantBody = try #require(tenant.json?.objectValue, "tenant: \(tenant.text)")
        let sharedToken = Registry.token(3)
        _ = try await app.deviceID(shared, ["token": .string(sharedToken)])
        return WrongInputWorld(
            app: app, main: main, spare: spare, shared: shared, deviceToken: token, restSubscriptionID: restSubscriptionID,
            extraKeyID: key, segmentID: segment, notificationID: notification, templateID: template, webhookID: webhook,
            channelID: channel, tenantID: try #require(tenantBody["id"]?.stringValue), sharedDeviceToken: sharedToken,
            linkCode: try #require(tenantBody["link_code"]?.stringValue),
            organizationID: try await AuditLogStore.organizationID(in: app.services.database))
    }

    /// A device with the external id the sends target, an open Live Activity and a
    /// push-to-start token, so a valid send reaches the database writes.
    static func prepareSendable(_ app: TestApp, _ created: CreatedApp, token: String) async throws {
        _ = try await app.deviceID(created, ["token": .string(token), "external_id": .string(externalID)])
        let path = "/v1/apps/\(created.app.id)/live-activities"
        for (suffix, body) in [
            ("", ["token": .string(token), "activity_id": .string(activityID), "activity_type": .string(activityType),
                  "update_token": .string(String(repeating: "c", count: 64))]),
            ("/push-to-start", ["token": .string(token), "activity_type": .string(activityType),
                                "push_to_start_token": .string(String(repeating: "d", count: 64))]),
        ] as [(String, JSONObject)] {
            let response = await app.request(.post, path + suffix, headers: .sdkKey(created.sdkKey), json: .object(body))
            try #require(response.status < 300, "\(path + suffix): \(response.text)")
        }
    }

    /// A new app ready for the send routes (each has its own rate limit).
    func sendableApp() async throws -> CreatedApp {
        let created = try await app.createApp()
        try await Self.prepareSendable(app, created, token: deviceToken)
        _ = try await Self.addChannel(app, created)
        return created
    }

    /// The broadcast channel of `appID` the table addresses: one per app, so a send route's
    /// fresh app has its own.
    static func channelID(of appID: String) -> String { "chn_wi_" + appID }

    /// Writes the app's channel straight to its table: creating one through the route would need APNs.
    static func addChannel(_ app: TestApp, _ created: CreatedApp) async throws -> String {
        let id = channelID(of: created.app.id)
        try await app.services.database.query("""
            INSERT INTO live_activity_channels (id, app_id, name, channel_id, message_storage_policy, environment)
            VALUES (\(id), \(created.app.id), 'scores', 'd3JvbmdpbnB1dA==', 0, 'sandbox')
            """)
        return id
    }

    private static func created(_ response: TestResponse, _ field: String) throws -> String {
        let value = try #require(response.json?.objectValue?[field], "\(response.status) \(response.text)")
        return value.stringValue ?? value.serialized
    }

    // MARK: - The table

    /// At least one valid request for every route the application registers.
    var cases: [RouteCase] {
        let appID = main.app.id
        let rest = HTTPHeaders.restKey(main.restKey)
        let sdk = HTTPHeaders.sdkKey(main.sdkKey)
        let hex64 = String(repeating: "e", count: 64)
        let user = ["app_id": appID, "alias_label": "external_id", "alias_id": Self.externalID]
        let appFields: JSONObject = [
            "name": "App", "apns_env": "sandbox", "shared_demo": false, "onesignal_alias": false, "apns_p8": nil,
            "apns_key_id": "KEY123", "apns_team_id": "TEAM123", "apns_bundle_id": "com.example.x",
            "apns_watch_bundle_id": "com.example.x.watch", "live_activity_auto_end_minutes": 30,
            "dedupe_window_days": 30, "stale_alert_seconds": 600,
            "default_privacy_text": "New message",
            "live_activity_update_interval_seconds": 5, "widget_push_interval_seconds": 15,
        ]
        let notification: JSONObject = [
            "app_id": .string(appID), "name": "n", "contents": ["en": "Hi {{ first_name }}"], "headings": ["en": "H"],
            "subtitle": ["en": "S"], "data": ["order": 7], "ios_badgeType": "Increase", "ios_badgeCount": 1,
            "ios_sound": "default", "ios_category": "c", "thread_id": "t", "collapse_id": "k", "mutable_content": true,
            "ios_interruption_level": "active", "ios_relevance_score": 0.5, "priority": 10, "ttl": 60,
            "send_after": 1_700_000_000, "target_content_identifier": "x", "included_segments": ["Subscribed Users"],
            "excluded_segments": ["Level 10"], "privacy_text": ["en": "New {{ first_name }}"],
            "dedupe_key": "order-7", "event_at": "2023-11-14T22:13:20Z", "stale_after_seconds": 900, "quiet_hours": "defer",
        ]
        let sendBase: JSONObject = [
            "event_updates": ["status": "out", "eta": 5], "name": "Order", "headings": ["en": "On the way"],
            "contents": ["en": "Soon"], "stale_date": 1_900_000_000, "ios_relevance_score": 0.5,
        ]
        var start = sendBase
        for (key, value) in [("event", "start"), ("activity_id", "order-1"), ("priority", 10), ("ios_sound", "a"),
                             ("event_attributes", ["order": "1"]), ("idempotency_key", "0f2a5c31-9d64-4f0e-b8b1-2f7d5c9a41e0"),
                             ("include_aliases", ["external_id": [.string(Self.externalID)]])] as [(String, JSONValue)] {
            start[key] = value
        }
        var update = sendBase
        update["event"] = "update"
        update["priority"] = 5
        update["sound"] = "a"
        update["ios_sound"] = "b"
        var end = sendBase
        end["event"] = "end"
        end["dismissal_date"] = 1_900_000_000
        let sendPath = "/apps/{app_id}/live_activities/{activity_id}/notifications"
        let templateFields: JSONObject = [
            "name": "Shipped", "headings": ["en": "Order {{ message.custom_data.order }}"], "subtitle": ["en": "S"],
            "contents": ["en": "Hi"], "data": ["screen": "orders"], "ios_sound": "a.caf", "ios_category": "c",
            "ios_attachments": ["id1": "https://example.com/a.jpg"], "buttons": [["id": "b1", "text": "Open", "icon": "i"]],
            "isEmail": false, "email_subject": "ignored",
        ]
        let startPath = "/apps/{app_id}/activities/activity/{activity_type}"

        return [
            RouteCase(method: .get, template: "/health"),
            RouteCase(method: .get, template: "/ready"),
            RouteCase(method: .get, template: "/metrics"),
            RouteCase(method: .get, template: "/openapi.json"),
            RouteCase(method: .post, template: "/apps", headers: organization, body: appFields),
            RouteCase(method: .get, template: "/apps", headers: organization),
            RouteCase(method: .get, template: "/apps/{app_id}", pathValues: ["app_id": appID], headers: organization),
            RouteCase(method: .put, template: "/apps/{app_id}", pathValues: ["app_id": spare.app.id], headers: organization,
                      body: appFields),
            RouteCase(method: .post, template: "/apps/{app_id}/auth/tokens", pathValues: ["app_id": appID],
                      headers: organization, body: ["name": "k"]),
            RouteCase(method: .get, template: "/apps/{app_id}/auth/tokens", pathValues: ["app_id": appID], headers: organization),
            RouteCase(method: .patch, template: "/apps/{app_id}/auth/tokens/{token_id}",
                      pathValues: ["app_id": appID, "token_id": extraKeyID], headers: organization,
                      body: ["name": "k2", "ip_allowlist_mode": "disabled", "ip_allowlist": []]),
            RouteCase(method: .delete, template: "/apps/{app_id}/auth/tokens/{token_id}",
                      pathValues: ["app_id": appID, "token_id": extraKeyID], headers: organization),
            RouteCase(method: .post, template: "/apps/{app_id}/auth/tokens/{token_id}/rotate",
                      pathValues: ["app_id": appID, "token_id": extraKeyID], headers: organization),
            RouteCase(method: .post, template: "/apps/{app_id}/sdk_key/rotate", pathValues: ["app_id": appID],
                      headers: organization),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/subscriptions", pathValues: ["app_id": appID], headers: sdk,
                      readHeaders: ["X-OP-Device-Key"], body: [
                          "token": .string(Registry.token(4)), "platform": "ios", "environment": "sandbox",
                          "external_id": "u-4", "tags": ["level": "3", "gone": ""], "language": "en", "country": "NZ",
                          "timezone": "Pacific/Auckland", "app_version": "1.2", "device_model": "iPhone16,1",
                          "device_os": "18.1", "enabled": true, "previous_token": .string(Registry.token(5)),
                          "widget_push_token": .string(hex64), "hide_details": true,
                          "quiet_hours": ["start": "22:00", "end": "07:00"], "muted_threads": ["scores"],
                      ]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/subscriptions/retire", pathValues: ["app_id": appID],
                      headers: sdk, readHeaders: ["X-OP-Device-Key"], body: ["token": .string(deviceToken)]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/subscriptions/tokens", pathValues: ["app_id": appID],
                      headers: sdk, readHeaders: ["X-OP-Device-Key"],
                      body: ["token": .string(deviceToken), "kind": "voip", "push_token": .string(hex64)]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/subscriptions/tokens/remove", pathValues: ["app_id": appID],
                      headers: sdk, readHeaders: ["X-OP-Device-Key"], body: ["token": .string(deviceToken), "kind": "voip"]),
            RouteCase(method: .get, template: "/apps/{app_id}/subscriptions/{subscription_id}",
                      pathValues: ["app_id": appID, "subscription_id": restSubscriptionID], headers: rest),
            RouteCase(method: .patch, template: "/apps/{app_id}/subscriptions/{subscription_id}",
                      pathValues: ["app_id": appID, "subscription_id": restSubscriptionID], headers: rest,
                      body: ["subscription": ["enabled": true, "tags": ["level": "4"], "hide_details": true]]),
            RouteCase(method: .patch, template: "/apps/{app_id}/subscriptions/{subscription_id}",
                      pathValues: ["app_id": appID, "subscription_id": restSubscriptionID], headers: rest,
                      body: ["enabled": true, "tags": ["level": "5"], "quiet_hours": ["start": "23:00", "end": "06:30"],
                             "muted_threads": ["news"]]),
            RouteCase(method: .delete, template: "/apps/{app_id}/subscriptions/{subscription_id}",
                      pathValues: ["app_id": appID, "subscription_id": restSubscriptionID], headers: rest),
            RouteCase(method: .patch, template: "/apps/{app_id}/subscriptions/{subscription_id}/owner",
                      pathValues: ["app_id": appID, "subscription_id": restSubscriptionID], headers: rest,
                      body: ["identity": ["external_id": .string(Self.externalID)]]),
            RouteCase(method: .patch, template: "/apps/{app_id}/subscriptions_by_token/{token_type}/{token}",
                      pathValues: ["app_id": appID, "token_type": "iOSPush", "token": deviceToken], headers: rest,
                      body: ["subscription": ["enabled": true, "notification_types": 1, "app_version": "2.0",
                                              "device_model": "iPhone16,1", "device_os": "18.1", "test_type": 2,
                                              "session_time": 5, "sdk": "050210"]]),
            RouteCase(method: .post, template: "/apps/{app_id}/users/by/{alias_label}/{alias_id}/subscriptions",
                      pathValues: user, headers: rest, body: ["subscription": [
                          "type": "iOSPush", "token": .string(Registry.token(77)), "enabled": true, "notification_types": 1,
                          "app_version": "1.0", "device_model": "iPhone16,1", "device_os": "18.1", "test_type": 1,
                          "session_count": 1, "rooted": false, "carrier": "c", "net_type": 0]]),
            RouteCase(method: .post, template: "/apps/{app_id}/users", pathValues: ["app_id": appID], headers: rest, body: [
                "identity": ["external_id": "u-9", "crm": "c-9"],
                "properties": ["tags": ["level": "1"], "language": "en", "timezone_id": "UTC", "country": "NZ"],
            ]),
            RouteCase(method: .get, template: "/apps/{app_id}/users/by/{alias_label}/{alias_id}", pathValues: user, headers: rest),
            RouteCase(method: .delete, template: "/apps/{app_id}/users/by/{alias_label}/{alias_id}", pathValues: user,
                      headers: rest),
            RouteCase(method: .patch, template: "/apps/{app_id}/users/by/{alias_label}/{alias_id}", pathValues: user,
                      headers: rest, body: [
                          "properties": ["tags": ["level": "2"], "language": "en", "lat": 1.5, "long": 2, "first_active": 1],
                          "deltas": ["session_count": 1, "session_time": 5,
                                     "purchases": [["sku": "s", "amount": "1.5", "iso": "USD", "count": 1]]],
                      ]),
            RouteCase(method: .get, template: "/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity", pathValues: user,
                      headers: rest),
            RouteCase(method: .get, template: "/apps/{app_id}/subscriptions/{subscription_id}/user/identity",
                      pathValues: ["app_id": appID, "subscription_id": restSubscriptionID], headers: rest),
            RouteCase(method: .patch, template: "/apps/{app_id}/subscriptions/{subscription_id}/user/identity",
                      pathValues: ["app_id": appID, "subscription_id": restSubscriptionID], headers: rest,
                      body: ["identity": ["external_id": "u-sub", "crm": "c-sub"]]),
            RouteCase(method: .patch, template: "/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity", pathValues: user,
                      headers: rest, body: ["identity": ["crm": "c-2"]]),
            RouteCase(method: .delete, template: "/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity/{label_to_delete}",
                      pathValues: user.merging(["label_to_delete": "crm"]) { $1 }, headers: rest),
            RouteCase(method: .post, template: "/apps/{app_id}/segments", pathValues: ["app_id": appID], headers: rest, body: [
                "name": "Recent",
                "filters": [["field": "last_session", "relation": "<", "hours_ago": 24], ["operator": "OR"],
                            ["field": "session_count", "relation": ">", "value": 2]],
            ]),
            RouteCase(method: .get, template: "/apps/{app_id}/segments", pathValues: ["app_id": appID],
                      query: ["limit": "10", "offset": "0"], headers: rest),
            RouteCase(method: .get, template: "/apps/{app_id}/segments/{segment_id}",
                      pathValues: ["app_id": appID, "segment_id": segmentID], headers: rest),
            RouteCase(method: .patch, template: "/apps/{app_id}/segments/{segment_id}",
                      pathValues: ["app_id": appID, "segment_id": segmentID], headers: rest, body: [
                          "name": "Level 10", "description": "Players above level 10",
                          "filters": [["field": "tag", "key": "level", "relation": ">", "value": "10"]],
                      ]),
            RouteCase(method: .delete, template: "/apps/{app_id}/segments/{segment_id}",
                      pathValues: ["app_id": appID, "segment_id": segmentID], headers: rest),
            RouteCase(method: .post, template: "/apps/{app_id}/webhooks", pathValues: ["app_id": appID], headers: rest,
                      body: ["url": "https://hooks.example.com/b", "events": ["delivery.accepted", "click"], "description": "B"]),
            RouteCase(method: .get, template: "/apps/{app_id}/webhooks", pathValues: ["app_id": appID], headers: rest),
            RouteCase(method: .get, template: "/apps/{app_id}/webhooks/{webhook_id}",
                      pathValues: ["app_id": appID, "webhook_id": webhookID], headers: rest),
            RouteCase(method: .patch, template: "/apps/{app_id}/webhooks/{webhook_id}",
                      pathValues: ["app_id": appID, "webhook_id": webhookID], headers: rest,
                      body: ["url": "https://hooks.example.com/c", "events": ["*"], "description": "C", "enabled": true]),
            RouteCase(method: .post, template: "/apps/{app_id}/webhooks/{webhook_id}/rotate_secret",
                      pathValues: ["app_id": appID, "webhook_id": webhookID], headers: rest),
            RouteCase(method: .post, template: "/apps/{app_id}/webhooks/{webhook_id}/test",
                      pathValues: ["app_id": appID, "webhook_id": webhookID], headers: rest),
            RouteCase(method: .delete, template: "/apps/{app_id}/webhooks/{webhook_id}",
                      pathValues: ["app_id": appID, "webhook_id": webhookID], headers: rest),
            RouteCase(method: .get, template: "/apps/{app_id}/events", pathValues: ["app_id": appID],
                      query: ["after": DeliveryCursor.encode(0), "types": "click,delivery.accepted", "limit": "10"], headers: rest),
            RouteCase(method: .post, template: "/apps/{app_id}/tenants", pathValues: ["app_id": shared.app.id],
                      headers: organization, body: ["name": "Beta"]),
            RouteCase(method: .get, template: "/apps/{app_id}/tenants", pathValues: ["app_id": shared.app.id],
                      headers: organization),
            RouteCase(method: .delete, template: "/apps/{app_id}/tenants/{tenant_id}",
                      pathValues: ["app_id": shared.app.id, "tenant_id": tenantID], headers: organization),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/devices/link", pathValues: ["app_id": shared.app.id],
                      headers: .sdkKey(shared.sdkKey), readHeaders: ["X-OP-Device-Key"],
                      body: ["token": .string(sharedDeviceToken), "code": .string(linkCode)]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/live-activities", pathValues: ["app_id": appID],
                      headers: sdk, readHeaders: ["X-OP-Device-Key"], body: [
                          "token": .string(deviceToken), "activity_id": "act-2", "activity_type": .string(Self.activityType),
                          "update_token": .string(hex64), "stale_at": 1_900_000_000,
                      ]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/live-activities/push-to-start", pathValues: ["app_id": appID],
                      headers: sdk, readHeaders: ["X-OP-Device-Key"], body: [
                          "token": .string(deviceToken), "activity_type": "Other", "push_to_start_token": .string(hex64),
                      ]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/live-activities/push-to-start/remove",
                      pathValues: ["app_id": appID], headers: sdk, readHeaders: ["X-OP-Device-Key"],
                      body: ["token": .string(deviceToken), "activity_type": .string(Self.activityType)]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/live-activities/{activity_id}/end",
                      pathValues: ["app_id": appID, "activity_id": Self.activityID], headers: sdk,
                      readHeaders: ["X-OP-Device-Key"], body: ["token": .string(deviceToken)]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/live-activities/{activity_id}/click",
                      pathValues: ["app_id": appID, "activity_id": Self.activityID], headers: sdk,
                      readHeaders: ["X-OP-Device-Key"], body: [
                          "token": .string(deviceToken), "notification_id": .string(notificationID),
                          "activity_type": .string(Self.activityType),
                      ]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/notifications/{notification_id}/opened",
                      pathValues: ["app_id": appID, "notification_id": notificationID], headers: sdk,
                      readHeaders: ["X-OP-Device-Key"], body: ["token": .string(deviceToken)]),
            RouteCase(method: .post, template: "/v1/apps/{app_id}/outcomes", pathValues: ["app_id": appID], headers: sdk,
                      readHeaders: ["X-OP-Device-Key"], body: [
                          "token": .string(deviceToken), "name": "Purchase", "value": 5, "notification_id": .string(notificationID),
                      ]),
            RouteCase(method: .get, template: "/apps/{app_id}/outcomes", pathValues: ["app_id": appID], query: [
                "outcome_names": "os__click.count,Purchase.sum", "outcome_names[]": "Sales, Purchase.count",
                "outcome_time_range": "1d", "outcome_platforms": "0,9", "outcome_attribution": "direct",
            ], headers: rest),
            RouteCase(method: .post, template: "/notifications/count-unsaved", headers: rest, body: [
                "app_id": .string(appID), "included_segments": ["Subscribed Users"], "excluded_segments": ["Level 10"],
                "target_channel": "push",
            ]),
            RouteCase(method: .post, template: startPath, pathValues: ["activity_type": Self.activityType], body: start,
                      freshSendApp: true),
            RouteCase(method: .post, template: sendPath, pathValues: ["activity_id": Self.activityID], body: update,
                      freshSendApp: true),
            RouteCase(method: .post, template: sendPath, pathValues: ["activity_id": Self.activityID], body: end,
                      freshSendApp: true),
            RouteCase(method: .post, template: "/notifications", headers: rest, readHeaders: ["Idempotency-Key"],
                      body: notification),
            RouteCase(method: .post, template: "/notifications", headers: rest, body: [
                "app_id": .string(appID), "contents": ["en": "Hi"], "ios_badgeType": "SetTo", "ios_badgeCount": 3,
                "filters": [["field": "last_session", "relation": ">", "hours_ago": 1], ["operator": "OR"],
                            ["field": "tag", "key": "t", "relation": "time_elapsed_gt", "value": 60]],
            ]),
            RouteCase(method: .post, template: "/notifications", headers: rest, body: [
                "app_id": .string(appID), "contents": ["en": "Hi"], "privacy": "ids_only", "privacy_text": "New message",
                "data": ["event_id": "e-1"], "included_segments": ["Subscribed Users"],
            ]),
            RouteCase(method: .post, template: "/notifications", headers: rest, body: [
                "app_id": .string(appID), "content_available": true, "include_subscription_ids": [.string(restSubscriptionID)],
            ]),
            RouteCase(method: .post, template: "/notifications", headers: rest, body: [
                "app_id": .string(appID), "push_type": "widgets",
                "include_aliases": ["external_id": [.string(Self.externalID)]],
            ]),
            RouteCase(method: .post, template: "/notifications", headers: rest, body: [
                "app_id": .string(appID), "template_id": .string(templateID), "custom_data": ["order": 7],
                "include_aliases": ["external_id": [.string(Self.externalID)]],
            ]),
            RouteCase(method: .post, template: "/templates", headers: rest, body: templateFields.setting(["app_id": .string(appID)])),
            RouteCase(method: .get, template: "/templates", query: ["app_id": appID, "limit": "5", "offset": "0", "channel": "push"],
                      headers: rest),
            RouteCase(method: .get, template: "/templates/{template_id}", pathValues: ["template_id": templateID],
                      query: ["app_id": appID], headers: rest),
            RouteCase(method: .patch, template: "/templates/{template_id}", pathValues: ["template_id": templateID],
                      query: ["app_id": appID], headers: rest, body: templateFields.setting(["ios_category": nil])),
            RouteCase(method: .post, template: "/templates/{template_id}/copy_to_app", pathValues: ["template_id": templateID],
                      query: ["app_id": appID], headers: organization, body: ["target_app_id": .string(spare.app.id)]),
            RouteCase(method: .get, template: "/organizations/{organization_id}/audit_logs",
                      pathValues: ["organization_id": organizationID], query: [
                          "limit": "5", "app_ids": appID, "actions": "app.created", "actor_ids": "org", "target_types": "app",
                          "target_ids": appID, "start_time": "2020-01-01T00:00:00Z", "end_time": "2100-01-01T00:00:00Z",
                      ], headers: organization),
            RouteCase(method: .delete, template: "/templates/{template_id}", pathValues: ["template_id": templateID],
                      query: ["app_id": appID], headers: rest),
            RouteCase(method: .get, template: "/notifications", query: ["app_id": appID, "limit": "5", "offset": "0"],
                      headers: rest),
            RouteCase(method: .get, template: "/notifications/{notification_id}",
                      pathValues: ["notification_id": notificationID], query: ["app_id": appID], headers: rest),
            RouteCase(method: .get, template: "/notifications/{notification_id}/deliveries",
                      pathValues: ["notification_id": notificationID],
                      query: ["app_id": appID, "subscription_id": restSubscriptionID, "state": "accepted", "limit": "10",
                              "cursor": DeliveryPosition(subscriptionID: restSubscriptionID, id: 1).cursor],
                      headers: rest),
            RouteCase(method: .delete, template: "/notifications/{notification_id}",
                      pathValues: ["notification_id": notificationID], query: ["app_id": appID], headers: rest),
            RouteCase(method: .post, template: "/players/csv_export", query: ["app_id": appID], headers: rest,
                      body: ["extra_fields": ["country", "location"], "last_active_since": "1700000000",
                             "segment_name": "Active Users"]),
            RouteCase(method: .post, template: "/notifications/{notification_id}/history",
                      pathValues: ["notification_id": notificationID], headers: rest,
                      body: ["events": "sent", "app_id": .string(appID), "email": "ops@example.com"]),
            RouteCase(method: .post, template: "/notifications/{notification_id}/export_events",
                      pathValues: ["notification_id": notificationID], query: ["app_id": appID], headers: rest),
            RouteCase(method: .get, template: "/apps/{app_id}/exports/{file_name}",
                      pathValues: ["app_id": appID, "file_name": "exp_missing.csv.gz"], headers: rest),
            RouteCase(method: .get, template: "/docs"),
            RouteCase(method: .get, template: "/docs/{asset}", pathValues: ["asset": "docs.js"]),
            RouteCase(method: .get, template: "/console"),
            RouteCase(method: .get, template: "/console/{asset}", pathValues: ["asset": "console.js"]),
            RouteCase(method: .get, template: "/sdk/web/openpush.js"),
            RouteCase(method: .get, template: "/sdk/web/openpush-sw.js"),
            RouteCase(method: .get, template: "/stats/throughput", query: ["window": "15m", "step": "10s"], headers: organization),
            RouteCase(method: .get, template: "/apps/{app_id}/stats", pathValues: ["app_id": appID], query: ["window": "24h"],
                      headers: organization),
            RouteCase(method: .post, template: "/apps/{app_id}/live_activities/channels", pathValues: ["app_id": appID],
                      headers: rest, body: ["name": "final", "message_storage_policy": 1, "environment": "sandbox"]),
            RouteCase(method: .get, template: "/apps/{app_id}/live_activities/channels", pathValues: ["app_id": appID],
                      query: ["limit": "5", "offset": "0"], headers: rest),
            RouteCase(method: .get, template: "/apps/{app_id}/live_activities/channels/{channel_id}",
                      pathValues: ["app_id": appID, "channel_id": channelID], headers: rest),
            RouteCase(method: .delete, template: "/apps/{app_id}/live_activities/channels/{channel_id}",
                      pathValues: ["app_id": appID, "channel_id": channelID], headers: rest),
            RouteCase(method: .post, template: "/apps/{app_id}/live_activities/channels/{channel_id}/notifications",
                      pathValues: ["app_id": appID, "channel_id": channelID], headers: rest, body: [
                          "event": "update", "name": "score", "event_updates": ["home": 1], "headings": ["en": "Goal"],
                          "contents": ["en": "1 – 0"], "priority": 10, "stale_date": 4_102_444_800,
                      ], freshSendApp: true),
            RouteCase(method: .get, template: "/v1/apps/{app_id}/live-activities/channels", pathValues: ["app_id": appID],
                      query: ["name": "scores"], headers: sdk),
            RouteCase(method: .get, template: "/v1/apps/{app_id}/web-push", pathValues: ["app_id": appID], headers: sdk),
        ]
    }
}

extension JSONObject {
    /// This object with `pairs` set (added, or replacing the same keys in place).
    fileprivate func setting(_ pairs: JSONObject) -> JSONObject {
        var object = self
        for (key, value) in pairs { object[key] = value }
        return object
    }
}
