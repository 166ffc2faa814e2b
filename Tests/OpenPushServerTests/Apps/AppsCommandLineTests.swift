import Foundation
import Testing
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `openpush apps create` and the demo app of `openpush dev`, through the built binary.
@Suite struct AppsCommandLineTests {
    /// The rest of the first line that contains `label`, trimmed.
    static func value(after label: String, in text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }),
              let range = line.range(of: label)
        else { return nil }
        return line[range.upperBound...].trimmingCharacters(in: .whitespaces)
    }

    static func writeTemporaryFile(_ text: String) throws -> String {
        let path = try TemporaryDirectory.make(prefix: "apps-cli") + "/key.p8"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func helpListsAppsCreate() async throws {
        let output = try await OpenPushProcess.run(["--help"])
        #expect(output.status == 0)
        #expect(output.text.contains("apps create --name NAME --bundle-id ID"))
    }

    /// Each variable whole, however long its name: the list was once cut at 26 characters.
    @Test func helpNamesEveryVariableWhole() async throws {
        let output = try await OpenPushProcess.run(["help"])
        let lines = output.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for variable in Configuration.documentation {
            #expect(lines.contains { $0.hasPrefix(variable.name + " ") }, "\(variable.name)")
        }
    }

    @Test func createPrintsKeysThatWork() async throws {
        let database = try await TestDatabase.create()
        let empty = try await database.createEmptySibling()
        let p8 = try Self.writeTemporaryFile(try await AppsTestSupport.p256KeyPEM())
        let output = try await OpenPushProcess.run([
            "apps", "create", "--name", "Shop", "--bundle-id", "com.example.shop", "--p8", p8,
            "--key-id", "ABC123DEFG", "--team-id=TEAM123456", "--env", "sandbox",
        ], environment: ["OPENPUSH_DATABASE_URL": empty])
        #expect(output.status == 0, "\(output.text)")
        let id = try #require(Self.value(after: "app id:", in: output.text))
        let restKey = try #require(Self.value(after: "REST API key:", in: output.text))
        let sdkKey = try #require(Self.value(after: "SDK key:", in: output.text))
        #expect(Identifier.isWellFormed(id, prefix: "app"))

        // It migrated the empty database first; the keys open the app it made.
        let app = try TestApp.make(conninfo: empty, configure: { $0.organizationAPIKey = AppsTestSupport.organizationKey },
                                   routes: AuthenticationProbe.routes)
        #expect(await app.restKeyStatus(id, restKey) == 200)
        #expect(await app.sdkKeyStatus(id, sdkKey) == 200)
        let shown = await app.request(.get, "/apps/\(id)", headers: AppsTestSupport.organization).json?.objectValue
        #expect(shown?["name"] == "Shop" && shown?["apns_bundle_id"] == "com.example.shop" && shown?["apns_env"] == "sandbox")
        #expect(shown?["apns_key_id"] == "ABC123DEFG" && shown?["apns_team_id"] == "TEAM123456" && shown?["has_apns_key"] == true)
    }

    @Test(arguments: [
        (["apps"], "usage: openpush apps create"),
        (["apps", "delete"], "usage: openpush apps create"),
        (["apps", "create", "--bundle-id", "com.example.x"], "--name is required"),
        (["apps", "create", "--name", "X"], "--bundle-id is required"),
        (["apps", "create", "--name", "X", "--bundle-id", "b", "--colour", "red"], "unknown option '--colour'"),
        (["apps", "create", "--name", "X", "--bundle-id"], "--bundle-id needs a value"),
        (["apps", "create", "--name", "X", "--name", "Y", "--bundle-id", "b"], "--name is given twice"),
        (["apps", "create", "--name", "X", "--bundle-id", "b", "--env", "staging"], "apns_env must be one of: sandbox, production"),
        (["apps", "create", "--name", "X", "--bundle-id", "b", "--key-id", "K"], "--p8, --key-id and --team-id go together"),
        (["apps", "create", "--name", "X", "--bundle-id", "b", "--p8", "/nonexistent/key.p8", "--key-id", "K", "--team-id", "T"],
         "--p8: cannot read '/nonexistent/key.p8'"),
        (["apps", "create", "--name", "X", "--bundle-id", "b", "--p12", "/nonexistent/cert.p12"], "--p12: cannot read '/nonexistent/cert.p12'"),
        (["apps", "create", "--name", "X", "--bundle-id", "b", "--p12-password", "pw"], "--p12-password needs --p12"),
    ])
    func aBadArgumentIsOneLineAndExitCode2(_ arguments: [String], _ message: String) async throws {
        // No database is needed to reject arguments: the URL points nowhere.
        let output = try await OpenPushProcess.run(arguments, environment: ["OPENPUSH_DATABASE_URL": "postgresql://nowhere.invalid/x"])
        #expect(output.status == 2)
        #expect(output.text.split(separator: "\n").count == 1, "\(output.text)")
        #expect(output.text.contains(message), "\(output.text)")
    }

    @Test func aKeyThatIsNotP256IsRefusedLikeTheRouteRefusesIt() async throws {
        let rsa = try Self.writeTemporaryFile(try await AppsTestSupport.privateKeyPEM(["-algorithm", "RSA"]))
        let output = try await OpenPushProcess.run([
            "apps", "create", "--name", "X", "--bundle-id", "b", "--p8", rsa, "--key-id", "K", "--team-id", "T",
        ], environment: ["OPENPUSH_DATABASE_URL": "postgresql://nowhere.invalid/x"])
        #expect(output.status == 2)
        #expect(output.text == "openpush: \(AppFields.badAPNSKey)\n")
    }

    /// `--p12`: the file as it is exported, read as `apns_p12` is and stored sealed; refused, with
    /// the route's words, when it cannot be used.
    @Test func createWithACertificateStoresItAndRefusesOneThatCannotBeUsed() async throws {
        let certificates = try await TestCertificates.make()
        let bundleID = "com.example.shop"
        let issued = try await certificates.issue(bundleID: bundleID, topics: [bundleID, bundleID + ".voip"], days: 200)
        let directory = try TemporaryDirectory.make(prefix: "apps-cli-p12")
        let p12 = directory + "/shop.p12"
        try Data(try await certificates.pkcs12(issued, password: "pw")).write(to: URL(fileURLWithPath: p12))
        let p8 = try Self.writeTemporaryFile(try await AppsTestSupport.p256KeyPEM())
        let nowhere = ["OPENPUSH_DATABASE_URL": "postgresql://nowhere.invalid/x"]
        for (arguments, message) in [
            (["--bundle-id", bundleID, "--p12", p12, "--p12-password", "wrong"], "apns_p12_password does not open apns_p12 (wrong password)"),
            (["--bundle-id", "com.example.other", "--p12", p12, "--p12-password", "pw"],
             "apns_p12's certificate is not valid for apns_bundle_id 'com.example.other'"),
            (["--bundle-id", bundleID, "--p12", p8], "apns_p12 is not a PKCS#12 (.p12) file"),
            (["--bundle-id", bundleID, "--p12", p12, "--p8", p8, "--key-id", "K", "--team-id", "T"], "--p12 and --p8 exclude each other"),
        ] {
            let output = try await OpenPushProcess.run(["apps", "create", "--name", "Shop"] + arguments, environment: nowhere)
            #expect(output.status == 2, "\(arguments)")
            #expect(output.text.split(separator: "\n").count == 1 && output.text.contains(message), "\(output.text)")
        }

        let database = try await TestDatabase.create()
        let secretKey = SecretKeyring.generateKeyText()
        let output = try await OpenPushProcess.run([
            "apps", "create", "--name", "Shop", "--bundle-id", bundleID, "--p12", p12, "--p12-password=pw",
        ], environment: ["OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_SECRET_KEY": secretKey])
        #expect(output.status == 0, "\(output.text)")
        let id = try #require(Self.value(after: "app id:", in: output.text))
        let app = try TestApp.make(conninfo: database.conninfo, configure: { $0.organizationAPIKey = AppsTestSupport.organizationKey },
                                   routes: AuthenticationProbe.routes)
        let shown = try #require(await app.request(.get, "/apps/\(id)", headers: AppsTestSupport.organization).json?.objectValue)
        #expect(shown["apns_auth"] == "certificate" && shown["has_apns_key"] == false)
        #expect(shown["apns_certificate_topics"] == [.string(bundleID), .string(bundleID + ".voip")])
        let stored: String = try await app.services.database.query("SELECT apns_certificate FROM apps WHERE id = \(id)")
            .firstRow().decode("apns_certificate")
        let key = try #require(SecretKeyring.parseKey(secretKey))
        #expect(stored.hasPrefix("sealed:v1:\(key.id):"))
        #expect(try SecretKeyring(current: key).open(stored).hasPrefix(issued.certificatePEM))
    }

    @Test func createWithoutADatabaseURLIsExitCode2() async throws {
        let output = try await OpenPushProcess.run(["apps", "create", "--name", "X", "--bundle-id", "b"])
        #expect(output.status == 2)
        #expect(output.text.contains("OPENPUSH_DATABASE_URL"))
    }

    /// `openpush dev` creates the demo app once, prints it again on later starts from
    /// `.openpush/demo_app.json`, and makes a new one when the saved app is gone.
    @Test func devCreatesAndRemembersTheDemoApp() async throws {
        let database = try await TestDatabase.create()
        let directory = try TemporaryDirectory.make(prefix: "apps-dev")
        let environment = ["OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_LISTEN": "127.0.0.1:0"]

        func start() async throws -> (id: String, restKey: String, sdkKey: String, curl: String, log: String) {
            let dev = try OpenPushProcess(["dev"], environment: environment, workingDirectory: directory)
            let curl = try await dev.waitForLog("try: curl ")
            let log = dev.log
            dev.signal(SIGTERM)
            #expect(try await dev.waitForExit() == 0)
            let id = try #require(Self.value(after: "demo app", in: log)?.split(separator: " ").last.map(String.init))
            return (id, try #require(Self.value(after: "REST API key:", in: log)), try #require(Self.value(after: "SDK key:", in: log)),
                    curl, log)
        }

        let first = try await start()
        #expect(first.log.contains("demo app created"))
        let file = directory + "/.openpush/demo_app.json"
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let organizationKey = try #require(Self.value(after: "organization key (OPENPUSH_ORG_API_KEY):", in: first.log))
        #expect(first.curl.hasPrefix("-H \"Authorization: Key \(organizationKey)\" http://127.0.0.1:"))
        #expect(first.curl.hasSuffix("/apps/\(first.id)"))

        let app = try TestApp.make(conninfo: database.conninfo, configure: { $0.organizationAPIKey = organizationKey },
                                   routes: AuthenticationProbe.routes)
        let shown = await app.request(.get, "/apps/\(first.id)", headers: ["Authorization": "Key \(organizationKey)"])
        #expect(shown.json?.objectValue?["name"] == "Demo app")
        #expect(shown.json?.objectValue?["apns_bundle_id"] == "com.example.openpush.demo")
        // The demo app signs its pushes with a key of its own.
        #expect(shown.json?.objectValue?["has_apns_key"] == true)
        #expect(shown.json?.objectValue?["apns_key_id"] == "DEMOKEY001")
        #expect(await app.restKeyStatus(first.id, first.restKey) == 200)
        #expect(await app.sdkKeyStatus(first.id, first.sdkKey) == 200)

        // Dev keeps a secret key (owner-only) and the demo app's .p8 is sealed with it, not in clear.
        let keyFile = directory + "/.openpush/secret_key"
        #expect((try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let secretKey = try #require(SecretKeyring.parseKey(try String(contentsOfFile: keyFile, encoding: .utf8)))
        let stored: String = try await app.services.database.query("SELECT apns_p8 FROM apps WHERE id = \(first.id)")
            .firstRow().decode("apns_p8")
        #expect(stored.hasPrefix("sealed:v1:\(secretKey.id):") && !stored.contains("PRIVATE KEY"))
        #expect(!first.log.contains("OPENPUSH_SECRET_KEY is not set"))

        let second = try await start()
        #expect(second.log.contains("demo app (from .openpush/demo_app.json)"))
        #expect((second.id, second.restKey, second.sdkKey) == (first.id, first.restKey, first.sdkKey))
        // The same key on the next start: what the first one sealed still opens.
        #expect(SecretKeyring.parseKey(try String(contentsOfFile: keyFile, encoding: .utf8)) == secretKey)
        #expect(!second.log.contains("sealed with a key this process does not have"))

        // A rotated key is not printed as if it still worked.
        _ = await app.request(.post, "/apps/\(first.id)/sdk_key/rotate", headers: ["Authorization": "Key \(organizationKey)"])
        let third = try await start()
        #expect(third.id == first.id && third.restKey == first.restKey)
        #expect(third.sdkKey.hasPrefix("(rotated since"))

        try await app.services.database.query("DELETE FROM apps WHERE id = \(first.id)")
        let fourth = try await start()
        #expect(fourth.log.contains("demo app created"))
        #expect(fourth.id != first.id)
        #expect(await app.restKeyStatus(fourth.id, fourth.restKey) == 200)
        let apps = try await app.services.database.query("SELECT count(*)::int8 AS n FROM apps")
        #expect(try apps[0].decode("n", as: Int.self) == 1)
    }
}
