import Crypto
import Foundation

/// The keys that seal secrets at rest (`.p8` keys, webhook signing secrets) with AES-256-GCM:
/// `OPENPUSH_SECRET_KEY` seals, and it and `OPENPUSH_SECRET_KEYS_OLD` open. A sealed value names
/// the key that sealed it, `sealed:v1:<key id>:<base64url(nonce ‖ ciphertext ‖ tag)>`, so a new
/// key can be introduced while values sealed with the old one still open, until
/// `openpush secrets rotate` re-seals them. The key id is the first 8 hex digits of the key's
/// SHA-256, and the `sealed:v1:<key id>` prefix is authenticated with the ciphertext.
///
/// With no current key nothing is sealed (values are stored as given, as before), and a value
/// stored in clear always reads back as itself: deployments that never set a key keep working.
package struct SecretKeyring: Sendable, Equatable {
    package struct Key: Sendable, Equatable {
        package let id: String
        let bytes: [UInt8]

        package init(bytes: [UInt8]) {
            precondition(bytes.count == AES256GCM.keySize, "a secret key is \(AES256GCM.keySize) bytes")
            self.bytes = bytes
            id = SHA256.hash(bytes).prefix(4).hexString
        }
    }

    static let prefix = "sealed:"
    static let version = "v1"

    /// Seals new values; nil: they are stored in clear.
    package let current: Key?
    /// Open values sealed before the current key was introduced.
    package let old: [Key]

    package init(current: Key? = nil, old: [Key] = []) {
        self.current = current
        self.old = old.filter { $0 != current }
    }

    /// A key given as 64 hex digits or as base64 (standard or url-safe, padded or not) of 32
    /// bytes; nil for anything else.
    package static func parseKey(_ text: String) -> Key? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.utf8.count == 64, let bytes = [UInt8](hex: trimmed) { return Key(bytes: bytes) }
        let standard = trimmed.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let padded = standard + String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: padded), data.count == AES256GCM.keySize else { return nil }
        return Key(bytes: Array(data))
    }

    /// A fresh random key as 64 hex digits (what `openpush dev` keeps).
    package static func generateKeyText() -> String { SecureRandom.bytes(AES256GCM.keySize).hexString }

    /// Whether new values are sealed.
    package var seals: Bool { current != nil }

    /// `secret` sealed with the current key, or as it is when there is none.
    package func seal(_ secret: String) -> String {
        guard let current else { return secret }
        let header = Self.header(keyID: current.id)
        do {
            let box = try AES256GCM.seal(Array(secret.utf8), key: current.bytes, additionalData: Array(header.utf8))
            return header + ":" + Base64URL.encode(box.combined)
        } catch {
            // Only a wrong key or nonce size fails, and `Key` admits neither.
            fatalError("AES-256-GCM sealing failed: \(error)")
        }
    }

    /// The secret in a stored value: a sealed one opened, a clear one as it is.
    package func open(_ stored: String) throws(SealedSecretError) -> String {
        guard let sealed = Self.parse(stored) else {
            if stored.hasPrefix(Self.prefix) { throw .malformed }
            return stored
        }
        guard let key = key(withID: sealed.keyID) else { throw .unknownKey(sealed.keyID) }
        guard let box = AES256GCM.Box(combined: sealed.combined),
              let bytes = try? AES256GCM.open(box, key: key.bytes, additionalData: Array(Self.header(keyID: key.id).utf8)),
              let text = String(validating: bytes, as: UTF8.self)
        else { throw .tampered(keyID: sealed.keyID) }
        return text
    }

    /// The id of the key a stored value was sealed with; nil for a value in clear.
    package static func keyID(of stored: String) -> String? { parse(stored)?.keyID }

    /// Whether `secrets rotate` has work to do on this value: it is in clear, or sealed with a
    /// key other than the current one. Always false without a current key.
    package func needsResealing(_ stored: String) -> Bool {
        guard let current else { return false }
        return Self.keyID(of: stored) != current.id
    }

    func key(withID id: String) -> Key? {
        if let current, current.id == id { return current }
        return old.first { $0.id == id }
    }

    private static func header(keyID: String) -> String { prefix + version + ":" + keyID }

    private static func parse(_ stored: String) -> (keyID: String, combined: [UInt8])? {
        guard stored.hasPrefix(prefix) else { return nil }
        let parts = stored.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[1] == version, parts[2].utf8.count == 8, [UInt8](hex: String(parts[2])) != nil,
              let combined = Base64URL.decode(parts[3])
        else { return nil }
        return (String(parts[2]), combined)
    }
}
