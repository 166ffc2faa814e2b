import Crypto
import Foundation
package import OpenPushDelivery

/// Secrets `openpush dev` invents on first start and keeps under `.openpush/`, so a restart
/// keeps the same keys (and can open what the last run sealed).
package enum DevSecrets {
    package static func organizationKey(stateDirectory: String) throws -> String {
        let path = stateDirectory + "/org_api_key"
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            let key = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if key.count >= 16 { return key }
        }
        let key = "org_" + SecureRandom.bytes(24).hexString
        try key.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return key
    }

    /// The key that seals the dev database's secrets (`OPENPUSH_SECRET_KEY`), kept as 64 hex digits.
    package static func secretKey(stateDirectory: String) throws -> SecretKeyring.Key {
        let path = stateDirectory + "/secret_key"
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            // Replacing it would leave what it sealed unreadable: stop instead.
            guard let key = SecretKeyring.parseKey(existing.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ConfigurationError(variable: ".openpush/secret_key", problem: "is not a 64-hex-digit key; restore it or remove it and the database")
            }
            return key
        }
        let bytes = SecureRandom.bytes(AES256GCM.keySize)
        try bytes.hexString.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return SecretKeyring.Key(bytes: bytes)
    }
}
