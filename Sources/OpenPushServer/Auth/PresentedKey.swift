import OpenPushDelivery
/// Reads the key a client presents. The send routes and the REST API accept
/// `Authorization: Key|Basic|Bearer <key>`, a bare `Authorization: <key>`, or `X-OP-API-Key`.
/// The key is always the literal text after the scheme word: nothing is base64-decoded, so
/// genuine RFC 7617 Basic credentials simply do not match any key.
package enum PresentedKey {
    static let schemes = ["key", "basic", "bearer"]

    /// Every candidate key in the request, `Authorization` first.
    package static func candidates(authorization: String?, apiKeyHeader: String?) -> [String] {
        var keys: [String] = []
        if let authorization, let key = fromAuthorization(authorization) { keys.append(key) }
        if let header = apiKeyHeader?.trimmedSpaces, !header.isEmpty, !keys.contains(header) { keys.append(header) }
        return keys
    }

    static func fromAuthorization(_ value: String) -> String? {
        let trimmed = value.trimmedSpaces
        guard !trimmed.isEmpty else { return nil }
        if let space = trimmed.firstIndex(of: " ") {
            let scheme = trimmed[..<space].lowercased()
            let rest = trimmed[trimmed.index(after: space)...].trimmedSpaces
            if schemes.contains(scheme) { return rest.isEmpty ? nil : rest }
            return trimmed
        }
        return schemes.contains(trimmed.lowercased()) ? nil : trimmed
    }
}

extension StringProtocol {
    var trimmedSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
