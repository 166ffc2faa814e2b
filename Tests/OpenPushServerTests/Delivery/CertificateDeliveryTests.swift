import Foundation
import Testing
import APNsSimulator
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// A certificate app's pushes, through the whole pipeline: its credential is its sealed
/// certificate, its pushes go over a TLS connection presenting it (no `authorization`), a key
/// app's pushes alongside keep their JWT, and Apple's refusals of the certificate pause that
/// app alone.
@Suite struct CertificateDeliveryTests {
    static let certificateBundleID = "com.example.certified"

    /// A harness whose simulator trusts `certificates`' CA, sealing secrets with a key.
    static func harness(_ certificates: TestCertificates) async throws -> DeliveryHarness {
        let key = try #require(SecretKeyring.parseKey(SecretKeyring.generateKeyText()))
        return try await DeliveryHarness.make(clientCertificates: certificates) { $0.secretKeyring = SecretKeyring(current: key) }
    }

    /// A certificate app, as the app API stores one: `apns_auth = 'certificate'` and the
    /// certificate's and key's PEMs sealed in `apns_certificate`, no `.p8`.
    static func certificateApp(_ harness: DeliveryHarness, _ certificates: TestCertificates,
                               bundleID: String = certificateBundleID) async throws -> CreatedApp {
        let created = try await harness.app.createApp(AppSettings(name: "Certified", apnsBundleID: bundleID))
        let issued = try await certificates.issue(bundleID: bundleID, topics: [bundleID, bundleID + ".voip"])
        let sealed = harness.app.services.configuration.secretKeyring.seal(issued.certificatePEM + "\n" + issued.keyPEM)
        #expect(sealed.hasPrefix("sealed:"))
        try await harness.app.services.database.query("""
            UPDATE apps SET apns_auth = 'certificate', apns_certificate = \(sealed),
                            apns_certificate_expires_at = now() + interval '365 days',
                            apns_certificate_topics = \([bundleID, bundleID + ".voip"])::text[],
                            apns_p8 = NULL, apns_key_id = NULL, apns_team_id = NULL, updated_at = now()
            WHERE id = \(created.app.id)
            """)
        return created
    }

    /// One device for `app` with `token`, and an alert to all its subscribers.
    static func sendAlert(_ harness: DeliveryHarness, _ app: CreatedApp, token: String) async throws {
        _ = try await harness.app.deviceID(app, ["token": .string(token)])
        let sent = await harness.app.request(
            .post, "/notifications", headers: .restKey(app.restKey),
            json: ["app_id": .string(app.app.id), "included_segments": ["Subscribed Users"], "contents": ["en": "hello"]])
        try #require(sent.status == 200, "send: \(sent.text)")
    }

    static func apnsStatus(_ harness: DeliveryHarness, _ appID: String) async throws -> (paused: Bool, reason: String?) {
        let row = try await harness.app.services.database.query("""
            SELECT apns_paused_at IS NOT NULL AS paused, apns_status_reason FROM apps WHERE id = \(appID)
            """).firstRow()
        return (try row.decode("paused"), try row.decode("apns_status_reason"))
    }

    static let certificateToken = String(repeating: "ce", count: 32)
    static let keyToken = String(repeating: "4e", count: 32)

    @Test func aCertificateAppsPushGoesOverItsCertificateAndAKeyAppsAlongsideWithAJWT() async throws {
        let certificates = try await TestCertificates.make()
        let harness = try await Self.harness(certificates)
        defer { Task { await harness.shutdown() } }
        let certified = try await Self.certificateApp(harness, certificates)
        try await Self.sendAlert(harness, certified, token: Self.certificateToken)
        try await Self.sendAlert(harness, harness.created, token: Self.keyToken)
        try await harness.drain()

        let pushes = Dictionary(uniqueKeysWithValues: harness.simulator.accepted().map { ($0.deviceToken, $0) })
        let byCertificate = try #require(pushes[Self.certificateToken])
        #expect(byCertificate.authentication == .certificate(uid: Self.certificateBundleID))
        #expect(byCertificate.header("authorization") == nil)
        #expect(byCertificate.header("apns-topic") == Self.certificateBundleID)
        let byKey = try #require(pushes[Self.keyToken])
        #expect(byKey.authentication == .providerToken(keyID: "KEYID00001", teamID: "TEAM000001"))
        #expect(byKey.header("authorization")?.hasPrefix("bearer ") == true)
        #expect(byCertificate.connectionID != byKey.connectionID)
        #expect(try await Self.apnsStatus(harness, certified.app.id).paused == false)
    }

    @Test(arguments: ["BadCertificate", "BadCertificateEnvironment"])
    func aRefusedCertificatePausesOnlyItsAppWithTheReason(reason: String) async throws {
        let certificates = try await TestCertificates.make()
        let harness = try await Self.harness(certificates)
        defer { Task { await harness.shutdown() } }
        let certified = try await Self.certificateApp(harness, certificates)
        // A second certificate app that APNs keeps accepting.
        let other = try await Self.certificateApp(harness, certificates, bundleID: "com.example.othercert")
        harness.simulator.setCertificateBehaviour(.init(status: 403, reason: reason), forUID: Self.certificateBundleID)
        try await Self.sendAlert(harness, certified, token: Self.certificateToken)
        try await Self.sendAlert(harness, other, token: String(repeating: "0c", count: 32))
        try await Self.sendAlert(harness, harness.created, token: Self.keyToken)
        try await harness.drain()

        let paused = try await Self.apnsStatus(harness, certified.app.id)
        #expect(paused.paused)
        #expect(paused.reason == reason)
        #expect(try await Self.apnsStatus(harness, other.app.id).paused == false)
        #expect(try await Self.apnsStatus(harness, harness.created.app.id).paused == false)
        #expect(Set(harness.simulator.accepted().map(\.deviceToken)) == [String(repeating: "0c", count: 32), Self.keyToken])
        // The refused app's push waits for a fix; the others' went on.
        let held = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE app_id = \(certified.app.id)
            """).firstRow().decode("n", as: Int.self)
        #expect(held == 1)
    }

    @Test func aCertificateThatDoesNotParsePausesItsAppAsBadCertificate() async throws {
        let certificates = try await TestCertificates.make()
        let harness = try await Self.harness(certificates)
        defer { Task { await harness.shutdown() } }
        let certified = try await Self.certificateApp(harness, certificates)
        let sealed = harness.app.services.configuration.secretKeyring.seal("-----BEGIN CERTIFICATE-----\nnot one\n")
        try await harness.app.services.database.query("""
            UPDATE apps SET apns_certificate = \(sealed), updated_at = now() WHERE id = \(certified.app.id)
            """)
        try await Self.sendAlert(harness, certified, token: Self.certificateToken)
        try await Self.sendAlert(harness, harness.created, token: Self.keyToken)
        try await harness.drain()
        let paused = try await Self.apnsStatus(harness, certified.app.id)
        #expect(paused.paused)
        #expect(paused.reason == "BadCertificate")
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Self.keyToken])
    }
}
