import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /notifications/{id}/history` and `POST /notifications/{id}/export_events` against the
/// APNs simulator: the message's per-device records, its first taps, and both as events; the
/// same keys and apps as `GET /notifications/{id}`.
@Suite struct NotificationHistoryExportTests {
    static let accepted = [String(repeating: "b1", count: 32), String(repeating: "b2", count: 32)]
    static let dead = "dead" + String(repeating: "1", count: 60)

    static func history(_ harness: DeliveryHarness, _ messageID: String, events: String, app: CreatedApp? = nil,
                        key: String? = nil) async -> TestResponse {
        let app = app ?? harness.created
        return await harness.app.request(.post, "/notifications/\(messageID)/history", headers: .restKey(key ?? app.restKey),
                                         json: ["events": .string(events), "app_id": .string(app.app.id),
                                                "email": "ops@example.com"])
    }

    static func events(_ harness: DeliveryHarness, _ messageID: String, app: CreatedApp? = nil, key: String? = nil) async -> TestResponse {
        let app = app ?? harness.created
        return await harness.app.request(.post, "/notifications/\(messageID)/export_events", headers: .restKey(key ?? app.restKey),
                                         query: ["app_id": app.app.id])
    }

    static func url(_ response: TestResponse, _ field: String) throws -> String {
        try #require(response.status == 200, "\(response.status) \(response.text)")
        if field == "destination_url" { #expect(response.json?.objectValue?["success"] == true) }
        return try #require(response.json?.objectValue?[field]?.stringValue)
    }

    @Test func sentClickedAndEventsHoldTheMessagesRecordsAndTaps() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        var ids: [String: String] = [:]
        for (index, token) in (Self.accepted + [Self.dead]).enumerated() {
            ids[token] = try await harness.app.insertSubscription(appID: appID, token: token, externalID: "user-\(index)")
        }
        let messageID = try await NotificationDeliveriesTests.send(harness)
        try await harness.drain()
        let tapped = await harness.app.request(.post, "/v1/apps/\(appID)/notifications/\(messageID)/opened",
                                               headers: .sdkKey(harness.created.sdkKey), json: ["token": .string(Self.accepted[1])])
        #expect(tapped.status == 200, "\(tapped.text)")

        let sent = try Self.url(await Self.history(harness, messageID, events: "sent"), "destination_url")
        let clicked = try Self.url(await Self.history(harness, messageID, events: "clicked"), "destination_url")
        let all = try Self.url(await Self.events(harness, messageID), "csv_file_url")
        #expect(try await Exports.download(harness.app, sent, key: harness.created.restKey).status == 404)
        try await Exports.produceAll(harness.app)

        let sentRecords = try Exports.records(try await Exports.download(harness.app, sent, key: harness.created.restKey))
        #expect(sentRecords.first == ["player_id", "external_user_id", "device_type", "state", "error_reason", "timestamp"])
        let sentRows = Exports.rows(sentRecords)
        #expect(sentRows.count == 3)
        let byDevice = Dictionary(uniqueKeysWithValues: sentRows.map { ($0["player_id"] ?? "", $0) })
        #expect(Set(byDevice.keys) == Set(ids.values))
        #expect(byDevice[ids[Self.accepted[0]] ?? ""]?["state"] == "accepted")
        #expect(byDevice[ids[Self.accepted[0]] ?? ""]?["external_user_id"] == "user-0")
        #expect(byDevice[ids[Self.accepted[0]] ?? ""]?["device_type"] == "0")
        #expect(byDevice[ids[Self.dead] ?? ""]?["state"] == "error")
        #expect(byDevice[ids[Self.dead] ?? ""]?["error_reason"]?.isEmpty == false)
        #expect(sentRows.allSatisfy { ($0["timestamp"] ?? "").count == 19 })

        let clickedRows = Exports.rows(try Exports.records(try await Exports.download(harness.app, clicked, key: harness.created.restKey)))
        #expect(clickedRows.map { $0["player_id"] } == [ids[Self.accepted[1]]])
        #expect(clickedRows.first?["external_user_id"] == "user-1")

        let eventRows = Exports.rows(try Exports.records(try await Exports.download(harness.app, all, key: harness.created.restKey)))
        #expect(eventRows.filter { $0["event"] == "sent" }.count == 3)
        #expect(eventRows.filter { $0["event"] == "clicked" }.map { $0["player_id"] } == [ids[Self.accepted[1]]])
    }

    @Test func keysAppsAndMessagesAreScoped() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await harness.app.createApp()
        let mine = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.accepted[0])
        _ = try await harness.app.insertSubscription(appID: other.app.id, token: Self.accepted[1])
        let messageID = try await NotificationDeliveriesTests.send(harness)
        let otherMessage = try await NotificationDeliveriesTests.send(harness, other)
        try await harness.drain()

        // Another app's key on this app: 401.
        #expect(await Self.history(harness, messageID, events: "sent", key: other.restKey).status == 401)
        #expect(await Self.events(harness, messageID, key: other.restKey).status == 401)
        // This app's key naming the other app's message: 404.
        let crossed = await Self.history(harness, otherMessage, events: "sent")
        #expect(crossed.status == 404)
        #expect(crossed.json == ["errors": [.string("notification '\(otherMessage)' not found")]])
        #expect(await Self.events(harness, otherMessage).status == 404)
        #expect(await Self.history(harness, "msg_unknown", events: "clicked").status == 404)
        // Bad bodies.
        let bad = await harness.app.request(.post, "/notifications/\(messageID)/history", headers: .restKey(harness.created.restKey),
                                            json: ["events": "opened", "app_id": .string(harness.created.app.id)])
        #expect(bad.json == ["errors": ["events must be one of: sent, clicked"]])
        let noApp = await harness.app.request(.post, "/notifications/\(messageID)/history", headers: .restKey(harness.created.restKey),
                                              json: ["events": "sent"])
        #expect(noApp.json == ["errors": ["app_id is required"]])

        // The other app's history of its own message (not delivered: that app has no APNs
        // credentials) is its own: the file holds none of this app's records.
        let url = try Self.url(await Self.history(harness, otherMessage, events: "sent", app: other), "destination_url")
        let own = try Self.url(await Self.history(harness, messageID, events: "sent"), "destination_url")
        try await Exports.produceAll(harness.app)
        #expect(try await Exports.download(harness.app, url, key: harness.created.restKey).status == 401)
        let records = try Exports.records(try await Exports.download(harness.app, url, key: other.restKey))
        #expect(records == [ExportKind.notificationSent.historyColumns])
        let ownRows = Exports.rows(try Exports.records(try await Exports.download(harness.app, own, key: harness.created.restKey)))
        #expect(ownRows.map { $0["player_id"] } == [mine])
    }
}
