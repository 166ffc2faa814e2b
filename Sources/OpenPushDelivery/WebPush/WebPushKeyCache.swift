import OpenPushCore
import Synchronization

/// Each app's VAPID private key, opened from its sealed column once, again only when the
/// stored value changes (a new or imported key, a re-seal). The transport signs with it.
final class WebPushKeyCache: Sendable {
    private struct Entry {
        var stored: String
        var result: Result<String, SealedSecretError>
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let keyring: SecretKeyring
    private let defaultSubject: String?
    private let logger: Logger?

    init(keyring: SecretKeyring = SecretKeyring(), defaultSubject: String? = nil, logger: Logger? = nil) {
        self.keyring = keyring
        self.defaultSubject = defaultSubject
        self.logger = logger
    }

    /// What the app's web pushes are signed with: `.missingSubject` when neither the app nor
    /// `OPENPUSH_WEB_PUSH_SUBJECT` names a subject, nil when the app has no key yet.
    func lookup(for app: DeliveryContext.App) -> Result<WebPushVAPIDKey?, Problem> {
        guard let subject = app.webPushSubject ?? defaultSubject else { return .failure(.missingSubject) }
        guard let stored = app.webPushVAPIDKey, let publicKey = app.webPushVAPIDPublicKey else { return .success(nil) }
        let opened: Result<String, SealedSecretError>
        if let cached = entries.withLock({ $0[app.id] }), cached.stored == stored {
            opened = cached.result
        } else {
            opened = Result { () throws(SealedSecretError) in try keyring.open(stored) }
            if case .failure(let error) = opened {
                logger?.error("the app's VAPID key cannot be opened: its web pushes are held", [
                    "app.id": app.id, "secret.key_id": SecretKeyring.keyID(of: stored) ?? "-", "error": error.description,
                ])
            }
            entries.withLock { $0[app.id] = Entry(stored: stored, result: opened) }
        }
        return opened.map { WebPushVAPIDKey(privateKeyPEM: $0, publicKey: publicKey, subject: subject) }
            .mapError { .sealed($0) }
    }

    enum Problem: Error {
        case missingSubject
        case sealed(SealedSecretError)
    }
}
