/// Why a stored secret does not open. Each says which key to look for, never the secret.
package enum SealedSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Sealed with a key that is neither `OPENPUSH_SECRET_KEY` nor in `OPENPUSH_SECRET_KEYS_OLD`.
    case unknownKey(String)
    /// The key is known but the value does not authenticate: changed in the database.
    case tampered(keyID: String)
    /// Starts like a sealed value but is not one.
    case malformed

    package var description: String {
        switch self {
        case .unknownKey(let id):
            "sealed with secret key \(id), which is neither OPENPUSH_SECRET_KEY nor in OPENPUSH_SECRET_KEYS_OLD"
        case .tampered(let id):
            "sealed with secret key \(id) but does not authenticate: the stored value was changed"
        case .malformed:
            "a stored secret starts with 'sealed:' but is not a sealed value"
        }
    }

    /// The reason recorded where a push or webhook attempt fails on it.
    package var reason: String {
        switch self {
        case .unknownKey: "SecretSealedWithUnknownKey"
        case .tampered, .malformed: "SecretUnreadable"
        }
    }
}
