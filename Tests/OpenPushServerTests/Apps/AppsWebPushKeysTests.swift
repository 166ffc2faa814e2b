import Crypto
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// Each app's VAPID key pair: made at creation (or when an older app first needs it), shown as
/// its public key, sealed at rest, imported through `PUT /apps` in three forms, refused otherwise
/// with the key unchanged; `web_push_subject` and `web_push_status` in the app view; the SDK's
/// `GET /v1/apps/{app_id}/web-push`.
@Suite struct AppsWebPushKeysTests {
    typealias Support = AppsTestSupport
    static let key = SecretKeyring.parseKey(SecretKeyring.generateKeyText())!

    /// One test key pair (made for these tests) in each accepted form, and its public key.
    static let pkcs8 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgMz94VJjQjeVLZiH1
        eqeTjFSjttfeDkOkbPNyj4K3t0ahRANCAAQHfW08dUO0Hmm+e1BWwxuEG7cCzyKS
        uCXZp/I/AfjyoWn4BElKAreByJQ1TxcPy4hULD4latKf6A/6I/C6qTe7
        -----END PRIVATE KEY-----
        """
    static let sec1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIDM/eFSY0I3lS2Yh9Xqnk4xUo7bX3g5DpGzzco+Ct7dGoAoGCCqGSM49
        AwEHoUQDQgAEB31tPHVDtB5pvntQVsMbhBu3As8ikrgl2afyPwH48qFp+ARJSgK3
        gciUNU8XD8uIVCw+JWrSn+gP+iPwuqk3uw==
        -----END EC PRIVATE KEY-----
        """
    static let scalar = "Mz94VJjQjeVLZiH1eqeTjFSjttfeDkOkbPNyj4K3t0Y"
    static let publicKey = "BAd9bTx1Q7Qeab57UFbDG4QbtwLPIpK4Jdmn8j8B-PKhafgESUoCt4HIlDVPFw_LiFQsPiVq0p_oD_oj8LqpN7s"

    static func makeApp() async throws -> TestApp {
        try await TestApp.make(configure: {
            $0.organizationAPIKey = Support.organizationKey
            $0.secretKeyring = SecretKeyring(current: key)
        })
    }

    static func view(_ app: TestApp, _ id: String) async throws -> JSONObject {
        let response = await app.request(.get, "/apps/\(id)", headers: Support.organization)
        try #require(response.status == 200, "\(response.text)")
        return try #require(response.json?.objectValue)
    }

    static func put(_ app: TestApp, _ id: String, _ body: JSONObject) async -> TestResponse {
        await app.request(.put, "/apps/\(id)", headers: Support.organization, json: .object(body))
    }

    static func stored(_ app: TestApp, _ id: String) async throws -> (sealed: String?, publicKey: String?) {
        let rows = try await app.services.database.query("""
            SELECT web_push_vapid_private_key, web_push_vapid_public_key FROM apps WHERE id = \(id)
            """)
        return (try rows[0].decode("web_push_vapid_private_key"), try rows[0].decode("web_push_vapid_public_key"))
    }

    static func sdkKeyRoute(_ app: TestApp, _ id: String, sdkKey: String) async -> TestResponse {
        await app.request(.get, "/v1/apps/\(id)/web-push", headers: .sdkKey(sdkKey))
    }

    @Test func aNewAppHasAKeyPairShownAsItsPublicKeyAndSealedAtRest() async throws {
        let app = try await Self.makeApp()
        let create = await app.request(.post, "/apps", headers: Support.organization, json: ["name": "Web shop"])
        #expect(create.status == 200, "\(create.text)")
        let body = try #require(create.json?.objectValue)
        let id = try #require(body["id"]?.stringValue)
        let publicKey = try #require(body["web_push_vapid_public_key"]?.stringValue)
        #expect(publicKey.count == 87)
        let point = try #require(Base64URL.decode(publicKey))
        #expect(point.count == 65 && point.first == 4 && P256KeyPair.isValidPublicKey(point))
        #expect(body["web_push_vapid_private_key"] == nil && !create.text.contains("PRIVATE KEY"))
        #expect(body["web_push_subject"] == .null)
        #expect(body["web_push_status"] == nil)

        // Sealed with the keyring; opened, a PKCS#8 PEM of the key shown.
        let (sealed, stored) = try await Self.stored(app, id)
        let value = try #require(sealed)
        #expect(value.hasPrefix("sealed:v1:\(Self.key.id):") && !value.contains("PRIVATE KEY"))
        let pem = try SecretKeyring(current: Self.key).open(value)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(Base64URL.encode(try P256KeyPair(pem: pem).publicKey) == publicKey)
        #expect(stored == publicKey)
        #expect(try await Self.view(app, id)["web_push_vapid_public_key"] == .string(publicKey))

        // Another app has a key of its own.
        let other = try await app.createApp()
        #expect(other.app.webPushVAPIDPublicKey != nil && other.app.webPushVAPIDPublicKey != publicKey)
    }

    @Test func theSDKReadsThePublicKeyWithItsOwnAppsKeyOnly() async throws {
        let app = try await Self.makeApp()
        let first = try await app.createApp()
        let second = try await app.createApp()
        let answer = await Self.sdkKeyRoute(app, first.app.id, sdkKey: first.sdkKey)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.json == ["vapid_public_key": .string(try #require(first.app.webPushVAPIDPublicKey))])
        #expect(answer.headers["Access-Control-Allow-Origin"] == "*")

        // Another app's SDK key, no key, an unknown app: refused like every /v1 route.
        let crossed = await Self.sdkKeyRoute(app, first.app.id, sdkKey: second.sdkKey)
        #expect(crossed.status == 401)
        #expect(crossed.json?.objectValue?["detail"] != nil)
        #expect(await app.request(.get, "/v1/apps/\(first.app.id)/web-push").status == 401)
        #expect(await Self.sdkKeyRoute(app, "app_unknown", sdkKey: first.sdkKey).status == 404)
        // The organization key is no SDK key.
        #expect(await app.request(.get, "/v1/apps/\(first.app.id)/web-push", headers: Support.organization).status == 401)
    }

    @Test func anAppFromBeforeWebPushGetsOneKeyWhenFirstNeeded() async throws {
        let app = try await Self.makeApp()
        let created = try await app.createApp()
        let other = try await app.createApp()
        try await app.services.database.query("""
            UPDATE apps SET web_push_vapid_private_key = NULL, web_push_vapid_public_key = NULL WHERE id = \(created.app.id)
            """)
        #expect(try await Self.stored(app, created.app.id).publicKey == nil)

        // Callers racing for it all end with the one key stored.
        let keyring = app.services.configuration.secretKeyring
        let database = app.services.database
        let id = created.app.id
        let pairs = try await withThrowingTaskGroup(of: WebPushKeyPair?.self) { group in
            for _ in 0..<8 { group.addTask { try await VAPIDKeyStore.vapidKey(forApp: id, keyring: keyring, in: database) } }
            return try await group.reduce(into: [WebPushKeyPair?]()) { $0.append($1) }
        }
        let made = try #require(pairs.first ?? nil)
        #expect(pairs.allSatisfy { $0 == made })
        #expect(try await Self.stored(app, id).publicKey == made.publicKey)
        #expect(try await Self.view(app, id)["web_push_vapid_public_key"] == .string(made.publicKey))
        #expect(await Self.sdkKeyRoute(app, id, sdkKey: created.sdkKey).json == ["vapid_public_key": .string(made.publicKey)])
        #expect(Base64URL.encode(try P256KeyPair(pem: made.privateKeyPEM).publicKey) == made.publicKey)
        // The view makes one too; the other app's key is untouched.
        #expect(try await Self.stored(app, other.app.id).publicKey == other.app.webPushVAPIDPublicKey)
        #expect(try await VAPIDKeyStore.vapidKey(forApp: "app_unknown", keyring: keyring, in: database) == nil)
    }

    @Test(arguments: ["pkcs8", "sec1", "scalar"])
    func anImportedKeyReplacesTheAppsKeyWithItsPublicKeyDerived(form: String) async throws {
        let app = try await Self.makeApp()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let text = form == "pkcs8" ? Self.pkcs8 : form == "sec1" ? Self.sec1 : Self.scalar
        let response = await Self.put(app, created.app.id, ["web_push_vapid_private_key": .string(text)])
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json?.objectValue?["web_push_vapid_public_key"] == .string(Self.publicKey))
        #expect(!response.text.contains("PRIVATE KEY") && !response.text.contains(Self.scalar))
        let (sealed, stored) = try await Self.stored(app, created.app.id)
        #expect(stored == Self.publicKey)
        let value = try #require(sealed)
        #expect(value.hasPrefix("sealed:v1:") && !value.contains("PRIVATE KEY"))
        let opened = try SecretKeyring(current: Self.key).open(value)
        #expect(opened.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(Base64URL.encode(try P256KeyPair(pem: opened).publicKey) == Self.publicKey)
        #expect(await Self.sdkKeyRoute(app, created.app.id, sdkKey: created.sdkKey).json == ["vapid_public_key": .string(Self.publicKey)])
        #expect(try await Self.stored(app, other.app.id).publicKey == other.app.webPushVAPIDPublicKey)
        // Audited as a credential change, by name only.
        let audit = try await app.services.database.query("""
            SELECT metadata::text AS metadata FROM audit_log WHERE app_id = \(created.app.id) AND action = 'credentials.updated'
            """)
        #expect(try audit.map { try $0.decode("metadata", as: String.self) }.contains { $0.contains("web_push_vapid_private_key") })
    }

    @Test func aKeyOnCreationIsKeptInsteadOfAFreshOne() async throws {
        let app = try await Self.makeApp()
        let create = await app.request(.post, "/apps", headers: Support.organization,
                                       json: ["name": "Moved", "web_push_vapid_private_key": .string(Self.sec1),
                                              "web_push_subject": "mailto:ops@example.com"])
        #expect(create.status == 200, "\(create.text)")
        #expect(create.json?.objectValue?["web_push_vapid_public_key"] == .string(Self.publicKey))
        #expect(create.json?.objectValue?["web_push_subject"] == "mailto:ops@example.com")
    }

    @Test func anythingButAP256PrivateKeyIsRefusedAndTheKeyStays() async throws {
        let app = try await Self.makeApp()
        let created = try await app.createApp()
        let before = try await Self.stored(app, created.app.id)
        let rsa = try await Support.privateKeyPEM(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        let p384 = try await Support.privateKeyPEM(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        let shortScalar = Base64URL.encode(Array(repeating: 7, count: 31))
        let zeroScalar = Base64URL.encode(Array(repeating: 0, count: 32))
        let wrong: [JSONValue] = ["garbage", .string(rsa), .string(p384), .string(shortScalar), .string(zeroScalar),
                                  .string(Self.publicKey), "", 42, .null]
        for value in wrong {
            let response = await Self.put(app, created.app.id, ["web_push_vapid_private_key": value, "name": "Renamed"])
            #expect(response.status == 400, "\(value): \(response.text)")
            let errors = try #require(response.json?.objectValue?["errors"]?.arrayValue, "\(response.text)")
            #expect(errors.contains { $0.stringValue?.contains("web_push_vapid_private_key") == true }, "\(errors)")
            #expect(try await Self.stored(app, created.app.id) == before)
        }
        #expect(try await Self.view(app, created.app.id)["name"] == "Test app")
    }

    @Test func theSubjectIsSetShownClearedAndChecked() async throws {
        let app = try await Self.makeApp()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let set = await Self.put(app, created.app.id, ["web_push_subject": "https://shop.example.com/contact"])
        #expect(set.status == 200, "\(set.text)")
        #expect(set.json?.objectValue?["web_push_subject"] == "https://shop.example.com/contact")
        #expect(try await Self.view(app, other.app.id)["web_push_subject"] == .null)
        for bad: JSONValue in ["ops@example.com", "http://shop.example.com", "mailto:", 7] {
            let response = await Self.put(app, created.app.id, ["web_push_subject": bad])
            #expect(response.status == 400, "\(bad)")
            #expect(response.json?.objectValue?["errors"]?.arrayValue?.first?.stringValue?.hasPrefix("web_push_subject") == true,
                    "\(response.text)")
        }
        #expect(try await Self.view(app, created.app.id)["web_push_subject"] == "https://shop.example.com/contact")
        let cleared = await Self.put(app, created.app.id, ["web_push_subject": .null])
        #expect(cleared.status == 200)
        #expect(cleared.json?.objectValue?["web_push_subject"] == .null)
    }

    @Test func webPushStatusIsShownOncePushServicesRefusedTheKeyAndANewKeyResumes() async throws {
        let app = try await Self.makeApp()
        let created = try await app.createApp()
        let other = try await app.createApp()
        try await app.services.database.query("""
            UPDATE apps SET web_push_paused_at = now(), web_push_status_reason = 'WebPushVAPIDRefused', web_push_status_at = now()
            WHERE id = \(created.app.id)
            """)
        let paused = try #require(try await Self.view(app, created.app.id)["web_push_status"]?.objectValue)
        #expect(paused["state"] == "paused" && paused["reason"] == "WebPushVAPIDRefused" && paused["at"] != .null)
        #expect(try await Self.view(app, other.app.id)["web_push_status"] == nil)

        #expect(await Self.put(app, created.app.id, ["web_push_vapid_private_key": .string(Self.pkcs8)]).status == 200)
        let resumed = try #require(try await Self.view(app, created.app.id)["web_push_status"]?.objectValue)
        #expect(resumed["state"] == "ok" && resumed["reason"] == "WebPushVAPIDRefused")
    }

    @Test func secretsRotateReSealsTheVAPIDKeys() async throws {
        let clear = try await TestApp.make(configure: { $0.organizationAPIKey = Support.organizationKey })
        let created = try await clear.createApp()
        let (inClear, publicKey) = try await Self.stored(clear, created.app.id)
        #expect(inClear?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        let keyring = SecretKeyring(current: Self.key)
        let rotation = try await SealedSecrets.rotate(keyring: keyring, in: clear.services.database)
        #expect(rotation.resealedVAPIDKeys == 1)
        let (sealed, after) = try await Self.stored(clear, created.app.id)
        let value = try #require(sealed)
        #expect(value.hasPrefix("sealed:v1:\(Self.key.id):"))
        #expect(try keyring.open(value) == inClear)
        #expect(after == publicKey)
        #expect(try await VAPIDKeyStore.vapidKey(forApp: created.app.id, keyring: keyring, in: clear.services.database)?
            .privateKeyPEM == inClear)
    }
}
