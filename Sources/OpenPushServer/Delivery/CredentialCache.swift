import OpenPushCore
import APNs
import Crypto
import Synchronization

/// Each app's APNs credential, parsed from its `.p8` once and again only when the app changes.
/// A credential no app uses any more (its key was rotated) is handed to `retired`, so the APNs
/// client closes its connections instead of keeping them until they idle out.
final class CredentialCache: Sendable {
    private struct Entry {
        var updatedAt: Double
        var credential: APNSCredential?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let retired: @Sendable (APNSCredential) -> Void

    init(retired: @escaping @Sendable (APNSCredential) -> Void = { _ in }) {
        self.retired = retired
    }

    /// The app's credential, or nil when it has none or its key does not parse.
    func credential(for app: DeliveryContext.App) -> APNSCredential? {
        if let cached = entries.withLock({ $0[app.id] }), cached.updatedAt == app.updatedAt {
            return cached.credential
        }
        var credential: APNSCredential?
        if let pem = app.p8, let keyID = app.keyID, let teamID = app.teamID, let key = try? P256SigningKey(pem: pem) {
            credential = APNSCredential(keyID: keyID, teamID: teamID, signingKey: key)
        }
        let unused = entries.withLock { entries -> APNSCredential? in
            let previous = entries[app.id]?.credential
            entries[app.id] = Entry(updatedAt: app.updatedAt, credential: credential)
            // Apps may share a key: retire it only when no app holds it any more.
            guard let previous, previous != credential, !entries.values.contains(where: { $0.credential == previous })
            else { return nil }
            return previous
        }
        if let unused { retired(unused) }
        return credential
    }
}
