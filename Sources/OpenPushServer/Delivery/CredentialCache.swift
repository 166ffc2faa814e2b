import OpenPushCore
import APNs
import Crypto
import Synchronization

/// Each app's APNs credential, parsed from its `.p8` once and again only when the app changes.
final class CredentialCache: Sendable {
    private struct Entry {
        var updatedAt: Double
        var credential: APNSCredential?
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The app's credential, or nil when it has none or its key does not parse.
    func credential(for app: DeliveryContext.App) -> APNSCredential? {
        if let cached = entries.withLock({ $0[app.id] }), cached.updatedAt == app.updatedAt {
            return cached.credential
        }
        var credential: APNSCredential?
        if let pem = app.p8, let keyID = app.keyID, let teamID = app.teamID, let key = try? P256SigningKey(pem: pem) {
            credential = APNSCredential(keyID: keyID, teamID: teamID, signingKey: key)
        }
        entries.withLock { $0[app.id] = Entry(updatedAt: app.updatedAt, credential: credential) }
        return credential
    }
}
