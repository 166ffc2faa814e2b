import Crypto
import Foundation

/// Provider tokens signed the way the APNs client signs them, with a key made for the test.
struct APNSSimulatorTestProvider {
    let keyID: String
    let teamID = "TEAM123456"
    let key: P256SigningKey

    init(keyID: String = "KEY1234567") throws {
        self.keyID = keyID
        // A self-signed certificate's key is a P-256 PKCS#8 PEM, as a .p8 is.
        key = try P256SigningKey(pem: SelfSignedCertificate.generate().privateKeyPEM)
    }

    func token(issuedAt: Date, keyID: String? = nil) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(keyID ?? self.keyID)"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"\#(teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#.utf8))
        let signature = try key.signES256(Array("\(header).\(claims)".utf8))
        return "\(header).\(claims).\(Base64URL.encode(signature))"
    }
}

/// Shared values and helpers of the simulator tests (namespaced: the APNs client's tests share this module).
enum APNSSimulatorFixtures {
    /// A 64-digit hex token starting with `prefix`.
    static func deviceToken(_ prefix: String = "", fill: Character = "a") -> String {
        prefix + String(repeating: fill, count: 64 - prefix.count)
    }

    /// Headers of a valid alert push, with replacements or removals (`nil`) by name.
    static func pushHeaders(_ overrides: [String: String?] = [:], authorization: String? = nil) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("apns-topic", "com.example.app"),
            ("apns-push-type", "alert"),
            ("apns-priority", "10"),
        ]
        if let authorization { headers.append(("authorization", "bearer \(authorization)")) }
        for (name, value) in overrides {
            headers.removeAll { $0.name == name }
            if let value { headers.append((name, value)) }
        }
        return headers
    }

    static let alertPayload = Array(#"{"aps":{"alert":{"title":"Hello","body":"World"}}}"#.utf8)

    /// A file path in the temporary directory, removed when `body` returns.
    static func withTemporaryPath<T>(_ name: String, _ body: (String) async throws -> T) async rethrows -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-\(UUID().uuidString)-\(name)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }
}
