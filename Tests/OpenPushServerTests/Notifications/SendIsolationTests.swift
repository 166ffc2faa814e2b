import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The send routes' rate limit and per-app lock: a failing send still uses its slot, and one
/// app's burst of heavy sends cannot take the connections every other app needs.
@Suite struct SendIsolationTests {
    static let type = "DeliveryAttributes"

    static func startBody(activityID: String, _ targeting: JSONObject) -> JSONObject {
        var body = LiveActivitySendTests.startBody(targeting)
        body["activity_id"] = .string(activityID)
        return body
    }

    /// `count` devices holding a push-to-start token, tagged `tier=gold`, external ids `u-0…`.
    static func insertStartableDevices(_ count: Int, appID: String, into app: TestApp) async throws {
        let now = app.services.now()
        try await app.seed { connection in
            try connection.query("""
                INSERT INTO subscriptions (id, app_id, token, external_id, tags, first_session_at, last_session_at)
                SELECT 'sub_' || \(appID) || '_' || i, \(appID), md5(\(appID) || i::text), 'u-' || i, '{"tier": "gold"}',
                       to_timestamp(\(now)::float8 - i), to_timestamp(\(now)::float8 - i)
                FROM generate_series(0, \(count - 1)) AS i
                """)
            try connection.query("""
                INSERT INTO push_to_start_tokens (id, app_id, subscription_id, activity_type, token)
                SELECT 'pts_' || \(appID) || '_' || i, \(appID), 'sub_' || \(appID) || '_' || i, \(type),
                       md5('pts' || \(appID) || i::text) || md5(\(appID) || i::text)
                FROM generate_series(0, \(count - 1)) AS i
                """)
        }
        try await app.seed("ANALYZE subscriptions, push_to_start_tokens")
    }

    /// Before, the limit's row was written in the send's own transaction, so a send that failed
    /// rolled it back and failing requests were never limited.
    @Test func sendsThatFailAfterAdmissionStillCountAgainstTheLimit() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        try await Self.insertStartableDevices(3, appID: created.app.id, into: app)
        // Breaks every start after it was admitted, with an unexpected (500) error.
        try await app.services.database.query("ALTER TABLE push_to_start_tokens RENAME TO push_to_start_tokens_gone")
        let path = "/apps/\(created.app.id)/activities/activity/\(Self.type)"
        let body = JSONValue.object(Self.startBody(activityID: "a", ["include_aliases": ["external_id": ["u-0"]]]))
        for index in 0..<60 {
            let response = await app.request(.post, path, headers: .restKey(created.restKey), json: body)
            #expect(response.status == 500, "request \(index)")
        }
        let limited = await app.request(.post, path, headers: .restKey(created.restKey), json: body)
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "60")
    }

    /// Thirty sends of one app filtering 100,000 devices each, all at once, on a pool of four
    /// connections: the other app's requests must still be answered, none with a `503`.
    @Test func heavySendsOfOneAppLeaveOtherAppsAnswered() async throws {
        let app = try await TestApp.make()
        let busy = try await app.createApp()
        let other = try await app.createApp()
        try await Self.insertStartableDevices(100_000, appID: busy.app.id, into: app)
        try await Self.insertStartableDevices(3, appID: other.app.id, into: app)
        let busyPath = "/apps/\(busy.app.id)/activities/activity/\(Self.type)"
        let otherPath = "/apps/\(other.app.id)/activities/activity/\(Self.type)"
        let gold: JSONObject = ["filters": [["field": "tag", "key": "tier", "relation": "=", "value": "gold"]]]

        let heavy = Task {
            await DatabaseBlackHoleTests.concurrently(30) { index in
                await app.request(.post, busyPath, headers: .restKey(busy.restKey),
                                  json: .object(Self.startBody(activityID: "heavy-\(index)", gold)))
            }
        }
        // Requests of the other app while the heavy sends run: sends (its own limit) and reads.
        var otherStatuses: [Int] = []
        for index in 0..<40 {
            let response = index % 2 == 0
                ? await app.request(.post, otherPath, headers: .restKey(other.restKey),
                                    json: .object(Self.startBody(activityID: "light-\(index)", gold)))
                : await app.request(.get, "/apps/\(other.app.id)/segments", headers: .restKey(other.restKey))
            otherStatuses.append(response.status)
            try await Task.sleep(for: .milliseconds(100))
        }
        let heavyResponses = await heavy.value
        #expect(otherStatuses.allSatisfy { $0 != 503 }, "\(otherStatuses)")
        #expect(otherStatuses.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? 201 : 200) }, "\(otherStatuses)")
        // The heavy sends run one after another; on a slow machine the last ones may give up
        // waiting (a 503 that names the reason), but none fails otherwise.
        let stillBusy = "earlier sends of this app are still running, try again shortly"
        for response in heavyResponses where response.status != 201 {
            #expect(response.status == 503 && response.json == ["errors": [.string(stillBusy)]], "\(response.status) \(response.text)")
        }
        let created = heavyResponses.filter { $0.status == 201 }.count
        #expect(created >= 10)
        let messages = try await app.services.database.query("""
            SELECT count(*)::int AS n FROM messages WHERE app_id = \(busy.app.id)
            """).firstRow().decode("n", as: Int.self)
        #expect(messages == created)
    }
}
