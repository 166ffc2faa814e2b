import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Certificate (`.p12`) authentication on `POST`/`PUT /apps`: checked with OpenSSL, sealed at
/// rest, never returned, one method at a time, each refusal named.
@Suite struct AppsCertificateTests {
    typealias Support = AppsTestSupport
    static let key = SecretKeyring.parseKey(SecretKeyring.generateKeyText())!
    static let bundleID = "com.example.certs"

    static func makeApp(now: @escaping @Sendable () -> Double = WallClock.now) async throws -> TestApp {
        try await TestApp.make(configure: {
            $0.organizationAPIKey = Support.organizationKey
            $0.secretKeyring = SecretKeyring(current: key)
        }, now: now)
    }

    static func base64(_ bytes: [UInt8]) -> JSONValue { .string(Data(bytes).base64EncodedString()) }

    static func stored(_ app: TestApp, _ id: String) async throws -> PostgresRow {
        try await app.services.database.query("""
            SELECT apns_auth, apns_certificate, apns_certificate_topics, apns_p8, apns_key_id, apns_team_id,
                   apns_certificate_warned_at IS NOT NULL AS warned
            FROM apps WHERE id = \(id)
            """).firstRow()
    }

    @Test(arguments: [false, true])
    func aP12AppIsCreatedSealedAndShownWithoutItsSecret(legacy: Bool) async throws {
        let app = try await Self.makeApp()
        let certificates = try await TestCertificates.make()
        let issued = try await certificates.issue(bundleID: Self.bundleID, topics: [Self.bundleID, Self.bundleID + ".voip"], days: 200)
        let p12 = try await certificates.pkcs12(issued, password: "pw", legacy: legacy)
        let other = try await app.createApp()
        let created = await app.request(.post, "/apps", headers: Support.organization, json: [
            "name": "Certs", "apns_bundle_id": .string(Self.bundleID), "apns_p12": Self.base64(p12), "apns_p12_password": "pw",
        ])
        #expect(created.status == 200, "\(created.text)")
        let body = try #require(created.json?.objectValue)
        let id = try #require(body["id"]?.stringValue)
        #expect(body["apns_auth"] == "certificate")
        #expect(body["apns_certificate_topics"] == [.string(Self.bundleID), .string(Self.bundleID + ".voip")])
        #expect(body["has_apns_key"] == false)
        let expiresAt = try #require(body["apns_certificate_expires_at"]?.stringValue)
        #expect(expiresAt.hasSuffix("Z") && expiresAt.hasPrefix(String(Timestamp.iso8601(Date().timeIntervalSince1970 + 200 * 86_400).prefix(4))))
        #expect(body["apns_status"]?.objectValue?["state"] == "ok")

        // Sealed at rest: certificate PEM, newline, unencrypted PKCS#8 key PEM.
        let row = try await Self.stored(app, id)
        let sealed: String = try row.decode("apns_certificate")
        #expect(sealed.hasPrefix("sealed:v1:\(Self.key.id):") && !sealed.contains("PRIVATE KEY"))
        let opened = try SecretKeyring(current: Self.key).open(sealed)
        #expect(opened.hasPrefix(issued.certificatePEM + "\n-----BEGIN PRIVATE KEY-----\n"))
        #expect(try row.decode("apns_auth", as: String.self) == "certificate")

        // Never in a view.
        for response in [created, await app.request(.get, "/apps/\(id)", headers: Support.organization),
                         await app.request(.get, "/apps", headers: Support.organization)] {
            #expect(!response.text.contains("PRIVATE KEY") && !response.text.contains("CERTIFICATE") && !response.text.contains("sealed:"))
            #expect(response.json?.objectValue?["apns_p12"] == nil)
        }
        let otherView = await app.request(.get, "/apps/\(other.app.id)", headers: Support.organization)
        #expect(otherView.json?.objectValue?["apns_auth"] == "token")
        #expect(otherView.json?.objectValue?["apns_certificate_expires_at"] == .null)
        #expect(otherView.json?.objectValue?["apns_certificate_topics"] == .null)

        // `secrets rotate` re-seals it with the new key.
        let next = SecretKeyring.parseKey(SecretKeyring.generateKeyText())!
        let rotated = try await SealedSecrets.rotate(keyring: SecretKeyring(current: next, old: [Self.key]), in: app.services.database)
        #expect(rotated.resealedKeys == 1)
        let resealed: String = try await Self.stored(app, id).decode("apns_certificate")
        #expect(resealed.hasPrefix("sealed:v1:\(next.id):"))
        #expect(try SecretKeyring(current: next).open(resealed) == opened)
    }

    @Test func eachRefusalIsNamedOnCreateAndUpdate() async throws {
        let app = try await Self.makeApp()
        let certificates = try await TestCertificates.make()
        let good = try await certificates.issue(bundleID: Self.bundleID)
        let expired = try await certificates.issue(bundleID: Self.bundleID, days: -1)
        let otherBundle = try await certificates.issue(bundleID: "com.example.elsewhere", topics: ["com.example.elsewhere"])
        let target = try await app.createApp(AppSettings(name: "Target", apnsBundleID: Self.bundleID))
        let goodP12 = try await certificates.pkcs12(good, password: "pw")
        let cases: [(JSONObject, [String])] = [
            (["apns_p12": "not base64 %%%"], [APNSCertificateProblem.notBase64.message]),
            (["apns_p12": Self.base64(Array("hello, not a p12".utf8))], [APNSCertificateProblem.notPKCS12.message]),
            (["apns_p12": Self.base64(goodP12), "apns_p12_password": "wrong"], [APNSCertificateProblem.wrongPassword.message]),
            (["apns_p12": Self.base64(try await certificates.pkcs12(good, password: "pw", withKey: false)), "apns_p12_password": "pw"],
             [APNSCertificateProblem.noPrivateKey.message]),
            (["apns_p12": Self.base64(try await certificates.pkcs12(expired, password: "pw")), "apns_p12_password": "pw"],
             ["apns_p12's certificate expired at "]),
            (["apns_p12": Self.base64(try await certificates.pkcs12(otherBundle, password: "pw")), "apns_p12_password": "pw"],
             ["apns_p12's certificate is not valid for apns_bundle_id 'com.example.certs' (its topics: com.example.elsewhere)"]),
            (["apns_p12": Self.base64(goodP12), "apns_p12_password": "pw", "apns_key_id": "KEY123"],
             ["apns_key_id cannot be given with apns_p12: an app authenticates to APNs with a .p8 key or a certificate, not both"]),
            (["apns_p12_password": "pw"], ["apns_p12_password is only read together with apns_p12"]),
        ]
        for (fields, messages) in cases {
            var create = fields
            create["name"] = "X"
            create["apns_bundle_id"] = .string(Self.bundleID)
            for response in [await app.request(.post, "/apps", headers: Support.organization, json: .object(create)),
                             await app.request(.put, "/apps/\(target.app.id)", headers: Support.organization, json: .object(fields))] {
                #expect(response.status == 400, "\(fields.keys.sorted())")
                let errors = response.json?.objectValue?["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(errors.count == messages.count && zip(errors, messages).allSatisfy { $0.hasPrefix($1) }, "\(errors)")
            }
        }
        // Nothing was stored: one app besides the target? None created, and the target is as it was.
        let count: Int = try await app.services.database.query("SELECT count(*)::int AS n FROM apps").firstRow().decode("n")
        #expect(count == 1)
        #expect(try await Self.stored(app, target.app.id).decode("apns_auth", as: String.self) == "token")
    }

    @Test func withoutABundleIDTheCertificatesUIDBecomesIt() async throws {
        let app = try await Self.makeApp()
        let certificates = try await TestCertificates.make()
        let issued = try await certificates.issue(bundleID: "com.example.fromuid")
        let created = await app.request(.post, "/apps", headers: Support.organization, json: [
            "name": "UID", "apns_p12": Self.base64(try await certificates.pkcs12(issued, password: "")), "apns_p12_password": "",
        ])
        #expect(created.status == 200, "\(created.text)")
        #expect(created.json?.objectValue?["apns_bundle_id"] == "com.example.fromuid")
        #expect(created.json?.objectValue?["apns_certificate_topics"] == ["com.example.fromuid"])
        // A bundle id the kept certificate does not cover is refused.
        let id = try #require(created.json?.objectValue?["id"]?.stringValue)
        let moved = await app.request(.put, "/apps/\(id)", headers: Support.organization, json: ["apns_bundle_id": "com.example.other"])
        #expect(moved.status == 400)
        #expect(moved.json == ["errors": [.string(APNSCertificateProblem.topicMissing(bundleID: "com.example.other",
                                                                                        topics: ["com.example.fromuid"]).message)]])
    }

    @Test func settingOneMethodClearsTheOtherAndNullRemovesTheCertificate() async throws {
        let app = try await Self.makeApp()
        let certificates = try await TestCertificates.make()
        let issued = try await certificates.issue(bundleID: Self.bundleID)
        let p12 = Self.base64(try await certificates.pkcs12(issued, password: "pw"))
        let pem = try await Support.p256KeyPEM()
        let keyApp = try await app.createApp(AppSettings(name: "Key", apnsP8: pem, apnsKeyID: "KEY0000001", apnsTeamID: "TEAM000001",
                                                         apnsBundleID: Self.bundleID))
        let bystander = try await app.createApp(AppSettings(name: "Bystander", apnsP8: pem, apnsKeyID: "KEY0000002",
                                                            apnsTeamID: "TEAM000002", apnsBundleID: Self.bundleID))
        let id = keyApp.app.id

        let toCertificate = await app.request(.put, "/apps/\(id)", headers: Support.organization,
                                              json: ["apns_p12": p12, "apns_p12_password": "pw"])
        #expect(toCertificate.status == 200, "\(toCertificate.text)")
        #expect(toCertificate.json?.objectValue?["apns_auth"] == "certificate")
        #expect(toCertificate.json?.objectValue?["has_apns_key"] == false)
        #expect(toCertificate.json?.objectValue?["apns_key_id"] == .null && toCertificate.json?.objectValue?["apns_team_id"] == .null)
        var row = try await Self.stored(app, id)
        #expect(try row.decode("apns_p8", as: String?.self) == nil)

        let toKey = await app.request(.put, "/apps/\(id)", headers: Support.organization,
                                      json: ["apns_p8": .string(pem), "apns_key_id": "KEY0000003", "apns_team_id": "TEAM000003"])
        #expect(toKey.status == 200, "\(toKey.text)")
        #expect(toKey.json?.objectValue?["apns_auth"] == "token" && toKey.json?.objectValue?["has_apns_key"] == true)
        #expect(toKey.json?.objectValue?["apns_certificate_expires_at"] == .null)
        row = try await Self.stored(app, id)
        #expect(try row.decode("apns_certificate", as: String?.self) == nil)
        #expect(try row.decode("apns_certificate_topics", as: [String]?.self) == nil)

        _ = await app.request(.put, "/apps/\(id)", headers: Support.organization, json: ["apns_p12": p12, "apns_p12_password": "pw"])
        let removed = await app.request(.put, "/apps/\(id)", headers: Support.organization, json: ["apns_p12": nil])
        #expect(removed.status == 200, "\(removed.text)")
        #expect(removed.json?.objectValue?["apns_auth"] == "token" && removed.json?.objectValue?["has_apns_key"] == false)
        #expect(try await Self.stored(app, id).decode("apns_certificate", as: String?.self) == nil)

        // Both at once is refused.
        let both = await app.request(.put, "/apps/\(id)", headers: Support.organization,
                                     json: ["apns_p12": p12, "apns_p12_password": "pw", "apns_p8": .string(pem)])
        #expect(both.json == ["errors": [
            "apns_p8 cannot be given with apns_p12: an app authenticates to APNs with a .p8 key or a certificate, not both",
        ]])

        // Audited as a credential change, by name.
        let audited = try await app.services.database.query("""
            SELECT metadata->'fields' AS fields FROM audit_log WHERE app_id = \(id) AND action = 'credentials.updated' ORDER BY position
            """).map { try $0.decode("fields", as: String.self) }
        #expect(audited == [#"["apns_p12"]"#, #"["apns_p8", "apns_key_id", "apns_team_id"]"#, #"["apns_p12"]"#, #"["apns_p12"]"#])
        // The other app kept its key throughout.
        let other = try await Self.stored(app, bystander.app.id)
        #expect(try other.decode("apns_auth", as: String.self) == "token")
        #expect(try other.decode("apns_key_id", as: String?.self) == "KEY0000002")
    }
}
