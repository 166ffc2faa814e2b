import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// Body fields that become APNs headers (`collapse_id` → `apns-collapse-id`, a bundle id →
/// `apns-topic`) take printable ASCII only: a control character there could reset the APNs
/// connection that other apps' pushes share.
@Suite struct HeaderTextRoutesTests {
    typealias Routes = NotificationRoutesTests

    /// 64 bytes of printable ASCII, a space inside and `~` at the end.
    static let printable64: String = {
        var bytes = (0..<63).map { UInt8(0x21 + $0) }
        bytes[10] = 0x20
        return String(decoding: bytes + [0x7E], as: UTF8.self)
    }()

    @Test func collapseIDIsPrintableASCIIOfAtMost64Bytes() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let base: JSONObject = ["include_subscription_ids": [.string(subscription)], "contents": ["en": "Body"]]
        let notASCII = "collapse_id must be printable ASCII (space to ~): it is sent as an HTTP/2 header"
        for (id, message) in [("order\n1", notASCII), ("order\u{1}", notASCII), ("order\u{7F}", notASCII),
                              ("commande-réglée", notASCII), (String(repeating: "k", count: 65), "collapse_id must be at most 64 bytes")] {
            var body = base
            body["collapse_id"] = .string(id)
            let refused = await Routes.post(harness, body)
            #expect(refused.status == 400)
            #expect(refused.json == ["errors": [.string(message)]], "\(refused.text)")
        }
        let none = try await Routes.count(harness, "SELECT count(*)::int AS n FROM messages")
        #expect(none == 0)

        #expect(Self.printable64.utf8.count == 64)
        var body = base
        body["collapse_id"] = .string(Self.printable64)
        let accepted = await Routes.post(harness, body)
        #expect(accepted.status == 200, "\(accepted.text)")
        try await harness.drain()
        let push = try #require(harness.simulator.accepted().first)
        #expect(push.header("apns-collapse-id") == Self.printable64)
    }

    /// A message stored before the check (here: its stored collapse id given a control character
    /// with SQL) fails at once in the client (`invalid_header`), which it would on every try: its
    /// record is an error, no retry job is left, and nothing reaches APNs.
    @Test func aStoredHeaderTheClientRefusesFailsWithoutRetries() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let accepted = await Routes.post(harness, ["include_subscription_ids": [.string(subscription)], "contents": ["en": "Body"],
                                                   "collapse_id": "order-1"])
        #expect(accepted.status == 200, "\(accepted.text)")
        try await harness.app.services.database.query("""
            UPDATE messages SET send = replace(send::text, '"order-1"', '"order\\u0001"')::jsonb
            """)
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
        let record = try await harness.app.services.database.query("""
            SELECT state, error_reason FROM deliveries WHERE subscription_id = \(subscription)
            """)
        #expect(record.count == 1)
        #expect(try record.firstRow().decode("state", as: String.self) == "error")
        #expect(try record.firstRow().decode("error_reason", as: String.self) == "Transport: invalid_header")
        #expect(try await Routes.count(harness, "SELECT count(*)::int AS n FROM delivery_jobs") == 0)
    }

    @Test func bundleIDsAreVisibleASCIIBecauseTheyBecomeTheTopic() async throws {
        let app = try await AppsTestSupport.makeApp()
        let organization = AppsTestSupport.organization
        let created = await app.request(.post, "/apps", headers: organization, json: ["name": "Shop", "apns_bundle_id": "com.example\r\nshop"])
        #expect(created.status == 400)
        #expect(created.json == ["errors": ["apns_bundle_id must be printable ASCII without spaces: it is sent as the apns-topic header"]])
        let ok = await app.request(.post, "/apps", headers: organization, json: ["name": "Shop", "apns_bundle_id": "com.example.shop"])
        let id = try #require(ok.json?.objectValue?["id"]?.stringValue, "\(ok.text)")
        let updated = await app.request(.put, "/apps/\(id)", headers: organization, json: ["apns_watch_bundle_id": "com.exämple.watch"])
        #expect(updated.status == 400)
        #expect(updated.json == ["errors": ["apns_watch_bundle_id must be printable ASCII without spaces: it is sent as the apns-topic header"]])
        let read = await app.request(.get, "/apps/\(id)", headers: organization)
        #expect(read.json?.objectValue?["apns_watch_bundle_id"] == .null)
    }
}
