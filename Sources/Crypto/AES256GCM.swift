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
        let context = try Context(encrypting: true, key: key, nonce: nonce)
        try context.addAuthenticatedData(additionalData)
        var ciphertext = try context.update(plaintext)
        ciphertext += try context.finish()
        var tag = [UInt8](repeating: 0, count: tagSize)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), &tag) == 1 else {
            throw CryptoError.openSSL("AES-256-GCM: reading the tag")
        }
        return Box(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts `box` under `key`; throws when the tag does not match (a wrong key, wrong
    /// additional data, or any byte changed).
    package static func open(_ box: Box, key: [UInt8], additionalData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: box.nonce)
        guard box.tag.count == tagSize else { throw CryptoError(message: "AES-256-GCM: the tag must be \(tagSize) bytes") }
        let context = try Context(encrypting: false, key: key, nonce: box.nonce)
        try context.addAuthenticatedData(additionalData)
        var plaintext = try context.update(box.ciphertext)
        var tag = box.tag
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), &tag) == 1 else {
            throw CryptoError.openSSL("AES-256-GCM: setting the tag")
        }
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

    /// Owns one `EVP_CIPHER_CTX` set up for one message.
    private final class Context {
        let pointer: OpaquePointer

        init(encrypting: Bool, key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
            guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
            self.pointer = pointer
            self.encrypting = encrypting
            // Fully initialized from here: a throw below still frees the context in `deinit`.
            // The default GCM nonce length is 12 bytes, the only one `checkSizes` lets through.
            let ready = encrypting
                ? EVP_EncryptInit_ex(pointer, EVP_aes_256_gcm(), nil, key, nonce)
                : EVP_DecryptInit_ex(pointer, EVP_aes_256_gcm(), nil, key, nonce)
            guard ready == 1 else { throw CryptoError.openSSL("AES-256-GCM: init") }
        }

        private let encrypting: Bool

        deinit {
            EVP_CIPHER_CTX_free(pointer)
        }

        func addAuthenticatedData(_ data: [UInt8]) throws(CryptoError) {
            guard !data.isEmpty else { return }
            var written: Int32 = 0
            let result = encrypting
                ? EVP_EncryptUpdate(pointer, nil, &written, data, Int32(data.count))
                : EVP_DecryptUpdate(pointer, nil, &written, data, Int32(data.count))
            guard result == 1 else { throw CryptoError.openSSL("AES-256-GCM: additional data") }
        }

        func update(_ input: [UInt8]) throws(CryptoError) -> [UInt8] {
            guard !input.isEmpty else { return [] }
            guard input.count < Int(Int32.max) else { throw CryptoError(message: "AES-256-GCM: input too large") }
            var output = [UInt8](repeating: 0, count: input.count)
            var written: Int32 = 0
            let result = encrypting
                ? EVP_EncryptUpdate(pointer, &output, &written, input, Int32(input.count))
                : EVP_DecryptUpdate(pointer, &output, &written, input, Int32(input.count))
            guard result == 1 else { throw CryptoError.openSSL("AES-256-GCM: update") }
            return Array(output.prefix(Int(written)))
        }

        func finish() throws(CryptoError) -> [UInt8] {
            // GCM is a stream mode: nothing is held back, but the call is where the tag is made
            // (sealing) or checked (opening).
            var output = [UInt8](repeating: 0, count: 16)
            var written: Int32 = 0
            let result = encrypting
                ? EVP_EncryptFinal_ex(pointer, &output, &written)
                : EVP_DecryptFinal_ex(pointer, &output, &written)
            guard result == 1 else { throw CryptoError.openSSL("AES-256-GCM: final") }
            return Array(output.prefix(Int(written)))
        }
    }
}
