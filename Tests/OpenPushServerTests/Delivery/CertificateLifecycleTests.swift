import Foundation
import HTTPServer
import Testing
import APNsSimulator
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// A certificate app from end to end, as an operator sees it: the `.p12` (a legacy RC2/3DES
/// export) uploaded through `POST /apps`, its pushes sent over that certificate, the app paused
/// once the certificate expires with its pushes held, and the held pushes sent once `PUT /apps`
/// brings a new certificate.
@Suite struct CertificateLifecycleTests {
    static let organizationKey = "org-key-for-certificate-lifecycle"
    static let organization: HTTPHeaders = ["Authorization": "Key \(organizationKey)"]
    static let bundleID = "com.example.lifecycle"

    static func base64(_ bytes: [UInt8]) -> JSONValue { .string(Data(bytes).base64EncodedString()) }

    static func send(_ harness: DeliveryHarness, appID: String, restKey: String, _ text: String) async throws {
        let sent = await harness.app.request(.post, "/notifications", headers: .restKey(restKey), json: [
            "app_id": .string(appID), "included_segments": ["Subscribed Users"], "contents": ["en": .string(text)],
        ])
        try #require(sent.status == 200, "send: \(sent.text)")
    }

    static func accepted(_ harness: DeliveryHarness, token: String) -> [String] {
        harness.simulator.accepted().filter { $0.deviceToken == token }.compactMap {
            $0.payloadJSON?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue
        }
    }

    @Test func uploadedSentExpiredHeldAndRenewed() async throws {
        let certificates = try await TestCertificates.make()
        let key = try #require(SecretKeyring.parseKey(SecretKeyring.generateKeyText()))
        let harness = try await DeliveryHarness.make(clientCertificates: certificates, configure: {
            $0.organizationAPIKey = Self.organizationKey
            $0.secretKeyring = SecretKeyring(current: key)
        })
        defer { Task { await harness.shutdown() } }

        let first = try await certificates.issue(bundleID: Self.bundleID, topics: [Self.bundleID], days: 40)
        let created = await harness.app.request(.post, "/apps", headers: Self.organization, json: [
            "name": "Certified", "apns_bundle_id": .string(Self.bundleID),
            "apns_p12": Self.base64(try await certificates.pkcs12(first, password: "pw", legacy: true)),
            "apns_p12_password": "pw",
        ])
        let app = try #require(created.json?.objectValue, "\(created.text)")
        #expect(app["apns_auth"] == "certificate")
        let appID = try #require(app["id"]?.stringValue)
        let restKey = try #require(app["basic_auth_key"]?.stringValue)
        let token = String(repeating: "c1", count: 32)
        try await harness.app.services.database.query("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            VALUES ('sub_lifecycle_1', \(appID), \(token), now(), now())
            """)

        try await Self.send(harness, appID: appID, restKey: restKey, "while valid")
        try await harness.drain()
        #expect(Self.accepted(harness, token: token) == ["while valid"])
        let push = try #require(harness.simulator.accepted().first { $0.deviceToken == token })
        #expect(push.authentication == .certificate(uid: Self.bundleID))
        #expect(push.header("authorization") == nil)

        // A maintenance pass past its expiry pauses the app (the pass is told the time; the
        // application's own clock stays, so sends are due at once), and its next push is held.
        try await Maintenance.runOnce(harness.app.services, now: WallClock.now() + 41 * 86_400)
        let paused = await harness.app.request(.get, "/apps/\(appID)", headers: Self.organization)
        #expect(paused.json?.objectValue?["apns_status"]?.objectValue?["state"] == "paused", "\(paused.text)")
        try await Self.send(harness, appID: appID, restKey: restKey, "while expired")
        try await harness.drain()
        #expect(Self.accepted(harness, token: token) == ["while valid"])

        // A new certificate lifts the pause, and the held push goes out over it.
        let renewed = try await certificates.issue(bundleID: Self.bundleID, topics: [Self.bundleID], days: 365)
        let put = await harness.app.request(.put, "/apps/\(appID)", headers: Self.organization, json: [
            "apns_p12": Self.base64(try await certificates.pkcs12(renewed, password: "new")), "apns_p12_password": "new",
        ])
        #expect(put.status == 200, "\(put.text)")
        var delivered: [String] = []
        for _ in 0..<200 where delivered.count < 2 {
            try await harness.drain()
            delivered = Self.accepted(harness, token: token)
            if delivered.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(delivered == ["while valid", "while expired"])
    }
}
