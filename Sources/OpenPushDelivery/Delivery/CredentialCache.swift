import OpenPushCore
import APNs
import Crypto
import Synchronization

/// Each app's APNs credential, parsed from its `.p8` (or, for a certificate app, its
/// certificate and key PEMs) once and again only when the app changes. A credential no app
/// uses any more (its key was rotated, its certificate renewed) is handed to `retired`, so the
/// APNs client closes its connections instead of keeping them until they idle out.
///
/// The secret comes as stored (sealed when `OPENPUSH_SECRET_KEY` was set) and is opened here,
/// where it becomes a credential; one that does not open is remembered and logged once per change
/// of the app or of the stored value (a re-seal), naming the key that sealed it.
final class CredentialCache: Sendable {
    private struct Entry {
        var updatedAt: Double
        /// The `.p8` (or certificate) as stored: `secrets rotate` re-seals it without touching `updated_at`.
        var stored: String?
        var credential: APNSCredential?
        var problem: SealedSecretError?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let keyring: SecretKeyring
    private let logger: Logger?
    private let retired: @Sendable (APNSCredential) -> Void

    init(keyring: SecretKeyring = SecretKeyring(), logger: Logger? = nil,
         retired: @escaping @Sendable (APNSCredential) -> Void = { _ in }) {
        self.keyring = keyring
        self.logger = logger
        self.retired = retired
    }

    /// The app's credential, or nil when it has none or its key does not parse (or open).
    func credential(for app: DeliveryContext.App) -> APNSCredential? {
        (try? lookup(for: app).get()) ?? nil
    }

    /// The app's credential (nil when it has none or its key does not parse), or why its sealed
    /// `.p8` does not open.
    func lookup(for app: DeliveryContext.App) -> Result<APNSCredential?, SealedSecretError> {
        let secret = app.certificate ?? app.p8
        if let cached = entries.withLock({ $0[app.id] }), cached.updatedAt == app.updatedAt, cached.stored == secret {
            return cached.problem.map { .failure($0) } ?? .success(cached.credential)
        }
        var credential: APNSCredential?
        var problem: SealedSecretError?
        if let stored = app.certificate {
            // A certificate app needs no key id or team id: the certificate names the app.
            do {
                let pem = try keyring.open(stored)
                credential = (try? APNSClientCertificate(pem: pem)).map(APNSCredential.certificate)
            } catch {
                problem = error
                logger?.error("the app's APNs certificate cannot be opened: its pushes are held", [
                    "app.id": app.id, "secret.key_id": SecretKeyring.keyID(of: stored) ?? "-", "error": error.description,
                ])
            }
        } else if let stored = app.p8, let keyID = app.keyID, let teamID = app.teamID {
            do {
                let pem = try keyring.open(stored)
                if let key = try? P256SigningKey(pem: pem) {
                    credential = APNSCredential(keyID: keyID, teamID: teamID, signingKey: key)
                }
            } catch {
                problem = error
                logger?.error("the app's .p8 key cannot be opened: its pushes are held", [
                    "app.id": app.id, "secret.key_id": SecretKeyring.keyID(of: stored) ?? "-", "error": error.description,
                ])
            }
        }
        let unused = entries.withLock { entries -> APNSCredential? in
            let previous = entries[app.id]?.credential
            entries[app.id] = Entry(updatedAt: app.updatedAt, stored: secret, credential: credential, problem: problem)
            // Apps may share a key: retire it only when no app holds it any more.
            guard let previous, previous != credential, !entries.values.contains(where: { $0.credential == previous })
            else { return nil }
            return previous
        }
        if let unused { retired(unused) }
        return problem.map { .failure($0) } ?? .success(credential)
    }

    /// Why an app the cache gives no credential is paused: a certificate app's certificate or
    /// key does not parse (`BadCertificate`); a token app lacks its `.p8`, key id or team id.
    static func missingReason(for app: DeliveryContext.App?) -> String {
        app?.certificate != nil ? APNSReason.badCertificate.rawValue : APNSReason.missingProviderToken.rawValue
    }
}
