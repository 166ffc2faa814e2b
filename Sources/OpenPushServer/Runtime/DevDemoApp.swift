import Crypto
import Foundation
package import OpenPushCore
package import OpenPushDelivery
import Postgres

/// The app `openpush dev` creates on first start, so there is something to try at once.
/// Keys are shown once and stored only as digests, so their values are kept in
/// `.openpush/demo_app.json` (mode 600) to print again on later starts.
package struct DevDemoApp: Sendable, Equatable {
    package var id: String
    /// `nil` when the saved value no longer opens the app (it was rotated or deleted since).
    package var restKey: String?
    package var sdkKey: String?
    /// True when this start created the app.
    package var isNew: Bool

    /// A demo app with a `.p8` of its own, so its pushes are signed like a real app's; the
    /// local APNs simulator of `openpush dev` accepts them.
    package static func settings() throws -> AppSettings {
        AppSettings(name: "Demo app", apnsP8: try P256SigningKey.generatePEM(), apnsKeyID: "DEMOKEY001",
                    apnsTeamID: "DEMOTEAM01", apnsBundleID: "com.example.openpush.demo")
    }
    static let fileName = "demo_app.json"

    /// A Google service account made for this start of `openpush dev`: its key goes to the
    /// local FCM simulator, its JSON to the demo app, so the app's Android pushes are signed
    /// and authorised like a real app's.
    package static func fcmServiceAccount() throws -> FCMServiceAccount {
        FCMServiceAccount(projectID: "openpush-demo", privateKeyID: "demo-key-1",
                          privateKey: try RSASigningKey.generatePEM(),
                          clientEmail: "firebase-adminsdk@openpush-demo.iam.gserviceaccount.com")
    }

    /// The saved demo app when it still exists, else a new one (saved for next time). With
    /// `fcmServiceAccount` (the simulator's), the app's FCM credentials become that account.
    package static func ensure(stateDirectory: String, services: Services,
                               fcmServiceAccount: FCMServiceAccount? = nil) async throws -> DevDemoApp {
        let path = stateDirectory + "/" + fileName
        if let saved = load(path), let current = try await stillPresent(saved, in: services.database) {
            if let fcmServiceAccount {
                // The simulator's key is new each start: the saved app takes it.
                var fields = AppFields()
                fields.fcmServiceAccount = .set(fcmServiceAccount)
                _ = try await AppStore.update(current.id, with: fields, now: services.now(),
                                              sealing: services.configuration.secretKeyring, in: services.database)
            }
            return current
        }
        var settings = try settings()
        settings.fcmServiceAccount = fcmServiceAccount
        let created = try await AppStore.create(settings, now: services.now(),
                                                sealing: services.configuration.secretKeyring, in: services.database)
        let demo = DevDemoApp(id: created.app.id, restKey: created.restKey, sdkKey: created.sdkKey, isNew: true)
        try save(demo, to: path)
        return demo
    }

    /// The saved app with only the keys that still work, or `nil` when the app is gone.
    static func stillPresent(_ saved: DevDemoApp, in database: PostgresPool) async throws -> DevDemoApp? {
        try await database.withConnection { connection in
            guard let app = try AppStore.find(saved.id, in: connection) else { return nil }
            var current = saved
            if let restKey = saved.restKey {
                let match = try connection.query("""
                    SELECT 1 FROM api_keys WHERE app_id = \(app.id) AND digest = \(KeyMaterial.digest(restKey))
                    """)
                if match.isEmpty { current.restKey = nil }
            }
            if let sdkKey = saved.sdkKey, !KeyMaterial.matches(sdkKey, digest: app.sdkKeyDigest) {
                current.sdkKey = nil
            }
            return current
        }
    }

    static func load(_ path: String) -> DevDemoApp? {
        guard let data = FileManager.default.contents(atPath: path),
              let object = (try? JSONValue.parse(Array(data)))?.objectValue,
              let id = object["id"]?.stringValue
        else { return nil }
        return DevDemoApp(id: id, restKey: object["rest_key"]?.stringValue, sdkKey: object["sdk_key"]?.stringValue, isNew: false)
    }

    /// Written under a temporary name with mode 600 and renamed, so the keys are never readable
    /// by others, not even for a moment.
    static func save(_ demo: DevDemoApp, to path: String) throws {
        let object: JSONValue = ["id": .string(demo.id), "rest_key": demo.restKey.map(JSONValue.string) ?? .null,
                                 "sdk_key": demo.sdkKey.map(JSONValue.string) ?? .null]
        let temporary = path + ".tmp"
        unlink(temporary)
        guard FileManager.default.createFile(atPath: temporary, contents: Data(object.serializedBytes),
                                             attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0
        else { throw InvariantViolation("cannot write \(path)") }
    }
}
