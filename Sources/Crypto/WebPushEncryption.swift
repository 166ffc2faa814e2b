import COpenSSL

/// Web Push message encryption (RFC 8291) in the `aes128gcm` content coding (RFC 8188), as one
/// record: the sender's ephemeral key agrees a secret with the browser's `p256dh` key, mixed
/// with its `auth` secret into a content key and nonce.
package enum WebPushEncryption {
    /// The record size the header states: one record carries the whole message.
    package static let recordSize = 4096
    /// Salt (16) ‖ record size (4) ‖ key id length (1) ‖ the sender's public key (65).
    package static let headerSize = 86
    package static let authSecretSize = 16
    /// The most plaintext one record carries: the record less the padding delimiter and tag.
    package static let maxPlaintextSize = recordSize - headerSize - 1 - GCMContext.tagSize

    /// Encrypts with a fresh ephemeral key and a fresh 16-byte salt.
    package static func encrypt(_ plaintext: [UInt8], receiverPublicKey: [UInt8], authSecret: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkSize(plaintext)
        return try seal(plaintext, agreement: P256EphemeralAgreement(peer: receiverPublicKey),
                        receiverPublicKey: receiverPublicKey, authSecret: authSecret, salt: SecureRandom.bytes(16))
    }

    /// Encrypts with a given sender scalar and salt (never reuse them: tests and RFC vectors only).
    package static func encrypt(_ plaintext: [UInt8], receiverPublicKey: [UInt8], authSecret: [UInt8],
                                senderScalar: [UInt8], salt: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkSize(plaintext)
        return try seal(plaintext, agreement: P256EphemeralAgreement(peer: receiverPublicKey, scalar: senderScalar),
                        receiverPublicKey: receiverPublicKey, authSecret: authSecret, salt: salt)
    }

    private static func checkSize(_ plaintext: [UInt8]) throws(CryptoError) {
        guard plaintext.count <= maxPlaintextSize else {
            throw CryptoError(message: "a Web Push message carries at most \(maxPlaintextSize) bytes, got \(plaintext.count)")
        }
    }

    private static func seal(_ plaintext: [UInt8], agreement: P256EphemeralAgreement, receiverPublicKey: [UInt8],
                             authSecret: [UInt8], salt: [UInt8]) throws(CryptoError) -> [UInt8] {
        let keys = try ContentKeys(secret: agreement.secret, authSecret: authSecret,
                                   receiverPublicKey: receiverPublicKey, senderPublicKey: agreement.publicKey, salt: salt)
        let context = try GCMContext(cipher: FetchedAlgorithms.aes128GCM, encrypting: true, key: keys.contentKey, nonce: keys.nonce)
        // The last (only) record ends with the delimiter 0x02 and no padding.
        var body = header(salt: salt, senderPublicKey: agreement.publicKey)
        body += try context.update(plaintext + [0x02])
        body += try context.finish()
        body += try context.tag()
        return body
    }

    /// The plaintext of a one-record `aes128gcm` body for the receiver's key pair.
    package static func decrypt(_ body: [UInt8], receiver: P256KeyPair, authSecret: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard body.count >= headerSize + GCMContext.tagSize + 1 else { throw CryptoError(message: "aes128gcm: body too short") }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        guard body[20] == 65 else { throw CryptoError(message: "aes128gcm: the key id is not a 65-byte P-256 point") }
        guard body.count - headerSize <= recordSize else { throw CryptoError(message: "aes128gcm: more than one record") }
        let senderPublicKey = Array(body[21..<headerSize])
        let keys = try ContentKeys(secret: receiver.sharedSecret(with: senderPublicKey), authSecret: authSecret,
                                   receiverPublicKey: receiver.publicKey, senderPublicKey: senderPublicKey, salt: salt)
        let context = try GCMContext(cipher: FetchedAlgorithms.aes128GCM, encrypting: false, key: keys.contentKey, nonce: keys.nonce)
        var record = try context.update(Array(body[headerSize..<(body.count - GCMContext.tagSize)]))
        try context.expectTag(Array(body.suffix(GCMContext.tagSize)))
        guard let last = try? context.finish() else {
            throw CryptoError(message: "aes128gcm: authentication failed (wrong keys, or the body was changed)")
        }
        record += last
        // Padding: zeros after the delimiter, which is 0x02 in the last record.
        while record.last == 0 { record.removeLast() }
        guard record.last == 0x02 else { throw CryptoError(message: "aes128gcm: no last-record delimiter") }
        record.removeLast()
        return record
    }

    private static func header(salt: [UInt8], senderPublicKey: [UInt8]) -> [UInt8] {
        let size = UInt32(recordSize)
        return salt + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + [UInt8(senderPublicKey.count)] + senderPublicKey
    }

    /// RFC 8291 §3.4 and RFC 8188 §2.2: the content encryption key and nonce of one message.
    /// Each HKDF here asks for at most 32 bytes, one block of SHA-256, so its expand is one HMAC
    /// of `info ‖ 0x01`, and the key and nonce share one extract: five HMACs in one context
    /// instead of three HKDF derivations with a context and a digest lookup each.
    private struct ContentKeys {
        private static let keyInfoLabel = Array("WebPush: info".utf8) + [0]
        private static let contentKeyInfo = Array("Content-Encoding: aes128gcm".utf8) + [0, 1]
        private static let nonceInfo = Array("Content-Encoding: nonce".utf8) + [0, 1]

        var contentKey: [UInt8]
        var nonce: [UInt8]

        init(secret: [UInt8], authSecret: [UInt8], receiverPublicKey: [UInt8], senderPublicKey: [UInt8],
             salt: [UInt8]) throws(CryptoError) {
            guard authSecret.count == WebPushEncryption.authSecretSize else {
                throw CryptoError(message: "the auth secret must be \(WebPushEncryption.authSecretSize) bytes, got \(authSecret.count)")
            }
            guard salt.count == 16 else { throw CryptoError(message: "the salt must be 16 bytes, got \(salt.count)") }
            let hmac = try HMACSHA256Context()
            // IKM = HKDF(salt: auth secret, key: ECDH secret, info: "WebPush: info" ‖ 0 ‖ ua_public ‖ as_public, 32).
            let keyPRK = try hmac.code(key: authSecret, message: secret)
            let inputKey = try hmac.code(key: keyPRK, message: Self.keyInfoLabel + receiverPublicKey + senderPublicKey + [1])
            // CEK = HKDF(salt, IKM, "Content-Encoding: aes128gcm" ‖ 0, 16); NONCE likewise with 12.
            let prk = try hmac.code(key: salt, message: inputKey)
            contentKey = Array(try hmac.code(key: prk, message: Self.contentKeyInfo).prefix(16))
            nonce = Array(try hmac.code(key: prk, message: Self.nonceInfo).prefix(12))
        }
    }
}
