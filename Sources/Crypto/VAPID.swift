/// Voluntary Application Server Identification (RFC 8292): the `Authorization` header an
/// application server sends a push service, an ES256 JWT for the endpoint's origin and its
/// public key.
package enum VAPID {
    /// `vapid t=<JWT>, k=<base64url public key>`. `audience` is the push endpoint's origin
    /// (`https://host[:port]`), `expiresAt` unix seconds (at most 24 hours ahead), `subject` a
    /// `mailto:` or `https:` URL.
    package static func authorization(key: P256KeyPair, audience: String, subject: String, expiresAt: Int) throws(CryptoError) -> String {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = "{\"aud\":\(jsonString(audience)),\"exp\":\(expiresAt),\"sub\":\(jsonString(subject))}"
        let signingInput = header + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try key.signES256(Array(signingInput.utf8))
        return "vapid t=\(signingInput).\(Base64URL.encode(signature)), k=\(Base64URL.encode(key.publicKey))"
    }

    /// A JSON string literal of `text` (quotes, backslashes and control characters escaped).
    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
