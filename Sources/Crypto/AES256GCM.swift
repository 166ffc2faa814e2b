import COpenSSL

/// AES-256-GCM through libcrypto's EVP interface: authenticated encryption for secrets kept at
/// rest. `seal` draws a fresh random 96-bit nonce each time (the size GCM is built for); `open`
/// refuses anything whose 128-bit tag does not match, so a changed byte of the nonce, the
/// ciphertext, the tag or the additional data is an error, never wrong plaintext.
package enum AES256GCM {
    package static let keySize = 32
    package static let nonceSize = 12
    package static let tagSize = 16

    /// One sealed message: `nonce ‖ ciphertext ‖ tag` as `combined`.
    package struct Box: Sendable, Equatable {
        package var nonce: [UInt8]
        package var ciphertext: [UInt8]
        package var tag: [UInt8]

        package init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }

        package var combined: [UInt8] { nonce + ciphertext + tag }

        /// Splits `nonce ‖ ciphertext ‖ tag`; nil when too short to hold a nonce and a tag.
        package init?(combined: [UInt8]) {
            guard combined.count >= AES256GCM.nonceSize + AES256GCM.tagSize else { return nil }
            nonce = Array(combined.prefix(AES256GCM.nonceSize))
            ciphertext = Array(combined.dropFirst(AES256GCM.nonceSize).dropLast(AES256GCM.tagSize))
            tag = Array(combined.suffix(AES256GCM.tagSize))
        }
    }

    /// Encrypts `plaintext` under `key` (32 bytes), authenticating `additionalData` too.
    /// `nonce` is for tests only: reusing a nonce with one key breaks GCM.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], additionalData: [UInt8] = [],
                            nonce: [UInt8] = SecureRandom.bytes(nonceSize)) throws(CryptoError) -> Box {
        try checkSizes(key: key, nonce: nonce)
        let context = try GCMContext(cipher: EVP_aes_256_gcm(), encrypting: true, key: key, nonce: nonce)
        try context.addAuthenticatedData(additionalData)
        var ciphertext = try context.update(plaintext)
        ciphertext += try context.finish()
        return Box(nonce: nonce, ciphertext: ciphertext, tag: try context.tag())
    }

    /// Decrypts `box` under `key`; throws when the tag does not match (a wrong key, wrong
    /// additional data, or any byte changed).
    package static func open(_ box: Box, key: [UInt8], additionalData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: box.nonce)
        guard box.tag.count == tagSize else { throw CryptoError(message: "AES-256-GCM: the tag must be \(tagSize) bytes") }
        let context = try GCMContext(cipher: EVP_aes_256_gcm(), encrypting: false, key: key, nonce: box.nonce)
        try context.addAuthenticatedData(additionalData)
        var plaintext = try context.update(box.ciphertext)
        try context.expectTag(box.tag)
        // The tag is checked here: nothing decrypted is returned unless it matches.
        guard let last = try? context.finish() else {
            throw CryptoError(message: "AES-256-GCM: authentication failed (wrong key, or the data was changed)")
        }
        plaintext += last
        return plaintext
    }

    private static func checkSizes(key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        guard key.count == keySize else { throw CryptoError(message: "AES-256-GCM: the key must be \(keySize) bytes, got \(key.count)") }
        guard nonce.count == nonceSize else {
            throw CryptoError(message: "AES-256-GCM: the nonce must be \(nonceSize) bytes, got \(nonce.count)")
        }
    }
}
