import Crypto
package import OpenPushCore

extension WebPushKeyPair {
    /// A fresh P-256 key pair.
    package static func generate() throws -> WebPushKeyPair {
        try WebPushKeyPair(P256KeyPair.generate())
    }

    /// The pair of an imported private key — PEM (PKCS#8 or SEC1) or base64url of the 32-byte
    /// scalar — with its public key derived; nil when it is not a P-256 private key.
    package static func imported(_ text: String) -> WebPushKeyPair? {
        let trimmed = text.trimmingASCIIWhitespace
        let pair: P256KeyPair?
        if trimmed.hasPrefix("-----BEGIN") {
            pair = try? P256KeyPair(pem: trimmed)
        } else if let scalar = Base64URL.decode(trimmed), scalar.count == 32 {
            pair = try? P256KeyPair(scalar: scalar)
        } else {
            pair = nil
        }
        return pair.flatMap { try? WebPushKeyPair($0) }
    }

    init(_ pair: P256KeyPair) throws {
        self.init(privateKeyPEM: try pair.privateKeyPEM(), publicKey: Base64URL.encode(pair.publicKey))
    }
}

extension String {
    fileprivate var trimmingASCIIWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
