import OpenPushCore
import Synchronization

/// Each app's FCM service account, opened from its sealed column and parsed once, again only
/// when the app changes (its `updated_at`) or the stored value does (a re-seal). The key itself
/// was checked when the app was saved; the FCM transport signs with it.
final class FCMAccountCache: Sendable {
    private struct Entry {
        var updatedAt: Double
        var stored: String
        var result: Result<FCMServiceAccount?, SealedSecretError>
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let keyring: SecretKeyring
    private let logger: Logger?

    init(keyring: SecretKeyring = SecretKeyring(), logger: Logger? = nil) {
        self.keyring = keyring
        self.logger = logger
    }

    /// The app's service account (nil when it has none), or why its sealed value does not open.
    func lookup(for app: DeliveryContext.App) -> Result<FCMServiceAccount?, SealedSecretError> {
        guard let stored = app.fcmServiceAccount else { return .success(nil) }
        if let cached = entries.withLock({ $0[app.id] }), cached.updatedAt == app.updatedAt, cached.stored == stored {
            return cached.result
        }
        let result: Result<FCMServiceAccount?, SealedSecretError>
        do {
            let text = try keyring.open(stored)
            result = .success(try? FCMServiceAccount.parse(text, checkKey: { _ in .rsa }))
        } catch {
            result = .failure(error)
            logger?.error("the app's FCM service account cannot be opened: its Android pushes are held", [
                "app.id": app.id, "secret.key_id": SecretKeyring.keyID(of: stored) ?? "-", "error": error.description,
            ])
        }
        entries.withLock { $0[app.id] = Entry(updatedAt: app.updatedAt, stored: stored, result: result) }
        return result
    }
}
