import Crypto
import Foundation

/// Secrets `openpush dev` invents on first start and keeps under `.openpush/`, so a restart
/// keeps the same keys.
public enum DevSecrets {
    public static func organizationKey(stateDirectory: String) throws -> String {
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
}
