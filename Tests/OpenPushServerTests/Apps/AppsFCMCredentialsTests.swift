import Crypto
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// `fcm_service_account` on `POST`/`PUT /apps`: checked, sealed at rest, never returned.
@Suite struct AppsFCMCredentialsTests {
    typealias Support = AppsTestSupport
    static let key = SecretKeyring.parseKey(SecretKeyring.generateKeyText())!

    static func serviceAccount(project: String = "shop-12345", pem: String, type: String = "service_account") -> String {
        JSONValue.object([
            "type": .string(type), "project_id": .string(project), "private_key_id": "0123456789abcdef",
            "private_key": .string(pem), "client_email": .string("firebase-adminsdk@\(project).iam.gserviceaccount.com"),
            "client_id": "1234567890", "token_uri": "https://oauth2.googleapis.com/token",
        ]).serialized
    }

    static func makeApp() async throws -> TestApp {
        try await TestApp.make(configure: {
            $0.organizationAPIKey = Support.organizationKey
            $0.secretKeyring = SecretKeyring(current: key)
        })
    }

    static func stored(_ app: TestApp, _ id: String) async throws -> (account: String?, project: String?) {
        let rows = try await app.services.database.query("SELECT fcm_service_account, fcm_project_id FROM apps WHERE id = \(id)")
        return (try rows[0].decode("fcm_service_account"), try rows[0].decode("fcm_project_id"))
    }

    @Test func aServiceAccountIsSealedShownAsAFlagAndRemovedByNull() async throws {
        let app = try await Self.makeApp()
        let pem = try RSASigningKey.generatePEM()
        let other = try await app.createApp()
        let create = await app.request(.post, "/apps", headers: Support.organization,
                                       json: ["name": "Shop", "fcm_service_account": .string(Self.serviceAccount(pem: pem))])
        #expect(create.status == 200, "\(create.text)")
        let id = try #require(create.json?.objectValue?["id"]?.stringValue)
        #expect(create.json?.objectValue?["has_fcm_credentials"] == true)
        #expect(create.json?.objectValue?["fcm_project_id"] == "shop-12345")
        #expect(!create.text.contains("PRIVATE KEY") && !create.text.contains("firebase-adminsdk"))

        // Sealed at rest; opened, it is the account without token_uri.
        let (sealed, project) = try await Self.stored(app, id)
        let value = try #require(sealed)
        #expect(value.hasPrefix("sealed:v1:\(Self.key.id):") && !value.contains("PRIVATE KEY"))
        #expect(project == "shop-12345")
        let opened = try SecretKeyring(current: Self.key).open(value)
        let account = try FCMServiceAccount.parse(opened, checkKey: { _ in .rsa })
        #expect(account == FCMServiceAccount(projectID: "shop-12345", privateKeyID: "0123456789abcdef", privateKey: pem,
                                             clientEmail: "firebase-adminsdk@shop-12345.iam.gserviceaccount.com"))
        #expect(!opened.contains("token_uri"))

        let read = await app.request(.get, "/apps/\(id)", headers: Support.organization)
        #expect(read.json?.objectValue?["has_fcm_credentials"] == true && !read.text.contains("PRIVATE KEY"))
        #expect(read.json?.objectValue?["fcm_service_account"] == nil)
        let otherRead = await app.request(.get, "/apps/\(other.app.id)", headers: Support.organization)
        #expect(otherRead.json?.objectValue?["has_fcm_credentials"] == false)
        #expect(otherRead.json?.objectValue?["fcm_project_id"] == .null)

        // A new account replaces it; null removes it; the other app is untouched throughout.
        let replaced = await app.request(.put, "/apps/\(id)", headers: Support.organization,
                                         json: ["fcm_service_account": .string(Self.serviceAccount(project: "shop-2", pem: pem))])
        #expect(replaced.json?.objectValue?["fcm_project_id"] == "shop-2", "\(replaced.text)")
        let removed = await app.request(.put, "/apps/\(id)", headers: Support.organization, json: ["fcm_service_account": nil])
        #expect(removed.json?.objectValue?["has_fcm_credentials"] == false)
        #expect(removed.json?.objectValue?["fcm_project_id"] == .null)
        #expect(try await Self.stored(app, id) == (nil, nil))
        let audited = try await app.services.database.query("""
            SELECT metadata->'fields' AS fields FROM audit_log WHERE app_id = \(id) AND action = 'credentials.updated' ORDER BY position
            """).map { try $0.decode("fields", as: String.self) }
        #expect(audited == [#"["fcm_service_account"]"#, #"["fcm_service_account"]"#])
        #expect(try await Self.stored(app, other.app.id) == (nil, nil))

        // Setting it on the other app leaves this one without.
        let put = await app.request(.put, "/apps/\(other.app.id)", headers: Support.organization,
                                    json: ["fcm_service_account": .string(Self.serviceAccount(project: "news-1", pem: pem))])
        #expect(put.json?.objectValue?["fcm_project_id"] == "news-1")
        #expect(try await Self.stored(app, id) == (nil, nil))
    }

    @Test func aMalformedServiceAccountIs400NamingTheProblem() async throws {
        let app = try await Self.makeApp()
        let created = try await app.createApp()
        let rsa = try RSASigningKey.generatePEM()
        let ec = try P256SigningKey.generatePEM()
        var missing = try #require(try JSONValue.parse(Self.serviceAccount(pem: rsa)).objectValue)
        missing["client_email"] = nil
        let cases: [(String, FCMServiceAccountProblem)] = [
            ("{\"type\": ", .notJSONObject),
            (JSONValue.object(missing).serialized, .missingField("client_email")),
            (Self.serviceAccount(pem: rsa, type: "authorized_user"), .notServiceAccount),
            (Self.serviceAccount(pem: ec), .keyNotRSA),
            (Self.serviceAccount(pem: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"), .keyUnparseable),
            (Self.serviceAccount(pem: String(rsa.dropLast(60))), .keyUnparseable),
            (Self.serviceAccount(pem: rsa + String(repeating: " ", count: FCMServiceAccount.maxJSONBytes)), .tooLarge),
        ]
        for (text, problem) in cases {
            let create = await app.request(.post, "/apps", headers: Support.organization, json: ["name": "X", "fcm_service_account": .string(text)])
            #expect(create.status == 400)
            #expect(create.json == ["errors": [.string(problem.message)]], "\(problem)")
            let update = await app.request(.put, "/apps/\(created.app.id)", headers: Support.organization,
                                           json: ["fcm_service_account": .string(text)])
            #expect(update.json == ["errors": [.string(problem.message)]], "\(problem)")
        }
        let notText = await app.request(.put, "/apps/\(created.app.id)", headers: Support.organization,
                                        json: ["fcm_service_account": ["type": "service_account"]])
        #expect(notText.status == 400)
        #expect(try await Self.stored(app, created.app.id) == (nil, nil))
        let count = try await app.services.database.query("SELECT count(*)::int8 AS n FROM apps")
        #expect(try count[0].decode("n", as: Int.self) == 1)
    }

    @Test func aRotationResealsTheServiceAccount() async throws {
        let app = try await Self.makeApp()
        let pem = try RSASigningKey.generatePEM()
        let create = await app.request(.post, "/apps", headers: Support.organization,
                                       json: ["name": "Shop", "fcm_service_account": .string(Self.serviceAccount(pem: pem))])
        let id = try #require(create.json?.objectValue?["id"]?.stringValue)
        let newKey = try #require(SecretKeyring.parseKey(SecretKeyring.generateKeyText()))
        let keyring = SecretKeyring(current: newKey, old: [Self.key])
        let rotation = try await SealedSecrets.rotate(keyring: keyring, in: app.services.database)
        #expect(rotation.resealedKeys == 1)
        let sealed = try #require(try await Self.stored(app, id).account)
        #expect(sealed.hasPrefix("sealed:v1:\(newKey.id):"))
        #expect(try FCMServiceAccount.parse(try keyring.open(sealed), checkKey: { _ in .rsa }).privateKey == pem)
    }
}
