import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// A certificate app's expiry on a manual clock: thirty days before, `apns_status` warns and one
/// `app.credentials_expiring` event is emitted (not one per maintenance run); once expired the
/// app is paused with a reason; a new certificate lifts both. Another certificate app and a key
/// app are left alone.
@Suite struct AppsCertificateExpiryTests {
    typealias Support = AppsTestSupport

    static func events(_ app: TestApp, _ id: String) async throws -> [JSONObject] {
        try await app.services.database.query("""
            SELECT data::text AS data FROM events WHERE app_id = \(id) AND type = 'app.credentials_expiring' ORDER BY seq
            """).map { try JSONValue.parse(try $0.decode("data", as: String.self)).objectValue ?? [:] }
    }

    static func status(_ app: TestApp, _ id: String) async throws -> JSONObject {
        let view = await app.request(.get, "/apps/\(id)", headers: Support.organization)
        return try #require(view.json?.objectValue?["apns_status"]?.objectValue, "\(view.text)")
    }

    /// A maintenance pass at the manual clock's time, with this test's events first moved to that
    /// time so the pass's pruning (seven days) keeps them.
    static func maintain(_ app: TestApp, _ clock: ManualClock) async throws {
        try await app.services.database.query("UPDATE events SET created_at = to_timestamp(\(clock.now()))")
        try await Maintenance.runOnce(app.services, now: clock.now())
    }

    @Test func warnedOnceThirtyDaysBeforePausedAfterAndLiftedByANewCertificate() async throws {
        let clock = ManualClock(Date().timeIntervalSince1970)
        let app = try await AppsCertificateTests.makeApp(now: clock.source)
        let certificates = try await TestCertificates.make()
        let bundle = AppsCertificateTests.bundleID
        let short = try await certificates.issue(bundleID: bundle, days: 40)
        let long = try await certificates.issue(bundleID: bundle, days: 365)
        func create(_ issued: TestCertificates.Issued, name: String) async throws -> (id: String, restKey: String) {
            let response = await app.request(.post, "/apps", headers: Support.organization, json: [
                "name": .string(name), "apns_bundle_id": .string(bundle),
                "apns_p12": AppsCertificateTests.base64(try await certificates.pkcs12(issued, password: "pw")), "apns_p12_password": "pw",
            ])
            let body = try #require(response.json?.objectValue, "\(response.text)")
            return (try #require(body["id"]?.stringValue), try #require(body["basic_auth_key"]?.stringValue))
        }
        let (expiring, restKey) = try await create(short, name: "Expiring")
        let steady = try await create(long, name: "Steady").id
        let keyApp = try await app.createApp()
        // Webhooks may subscribe to the new type.
        let hook = await app.request(.post, "/apps/\(expiring)/webhooks", headers: .restKey(restKey),
                                     json: ["url": "https://hooks.example.com/x", "events": ["app.credentials_expiring"]])
        #expect(hook.status == 201, "\(hook.text)")

        try await Self.maintain(app, clock)
        #expect(try await Self.events(app, expiring).isEmpty)
        #expect(try await Self.status(app, expiring)["state"] == "ok")

        // Eleven days on: 29 days left.
        clock.advance(by: 11 * 86_400)
        let warned = try await Self.status(app, expiring)
        #expect(warned["state"] == "expiring")
        #expect(warned["warning"]?.stringValue?.contains("apns_p12") == true)
        try await Self.maintain(app, clock)
        clock.advance(by: 3600)
        try await Self.maintain(app, clock)
        let emitted = try await Self.events(app, expiring)
        #expect(emitted.count == 1)
        #expect(emitted.first?["credential"] == "apns_certificate")
        #expect(emitted.first?["topics"] == [.string(bundle)])
        #expect(emitted.first?["expires_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(try await Self.status(app, steady)["state"] == "ok")
        #expect(try await Self.events(app, steady).isEmpty)

        // Past its expiry: paused with the reason, and the status time not bumped by later runs.
        clock.advance(by: 30 * 86_400)
        try await Self.maintain(app, clock)
        let paused = try await Self.status(app, expiring)
        #expect(paused["state"] == "paused" && paused["reason"] == .string(CertificateExpiry.pauseReason))
        clock.advance(by: 600)
        try await Self.maintain(app, clock)
        #expect(try await Self.status(app, expiring)["at"] == paused["at"])
        #expect(try await Self.events(app, expiring).count == 1)
        for other in [steady, keyApp.app.id] {
            let status = try await Self.status(app, other)
            #expect(status["state"] == "ok" && status["reason"] == .null, "\(other)")
        }

        // A new certificate lifts the pause and forgets the warning.
        let renewed = try await certificates.issue(bundleID: bundle, days: 365)
        let put = await app.request(.put, "/apps/\(expiring)", headers: Support.organization, json: [
            "apns_p12": AppsCertificateTests.base64(try await certificates.pkcs12(renewed, password: "pw")), "apns_p12_password": "pw",
        ])
        #expect(put.status == 200, "\(put.text)")
        #expect(put.json?.objectValue?["apns_status"]?.objectValue?["state"] == "ok")
        #expect(try await AppsCertificateTests.stored(app, expiring).decode("warned", as: Bool.self) == false)
        try await Self.maintain(app, clock)
        #expect(try await Self.status(app, expiring)["state"] == "ok")
    }
}
