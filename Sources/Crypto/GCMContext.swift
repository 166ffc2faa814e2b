import COpenSSL

/// One AES-GCM message through an `EVP_CIPHER_CTX`: the cipher (AES-128 or AES-256) decides the
/// key size; the nonce is the default 12 bytes. Shared by the secrets at rest (AES-256) and Web
/// Push message encryption (AES-128, RFC 8188).
final class GCMContext {
    static let tagSize = 16

    let pointer: OpaquePointer
    private let encrypting: Bool

    init(cipher: OpaquePointer?, encrypting: Bool, key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
        self.pointer = pointer
        self.encrypting = encrypting
        // Fully initialized from here: a throw below still frees the context in `deinit`.
        let ready = encrypting
            ? EVP_EncryptInit_ex(pointer, cipher, nil, key, nonce)
            : EVP_DecryptInit_ex(pointer, cipher, nil, key, nonce)
        guard ready == 1 else { throw CryptoError.openSSL("AES-GCM: init") }
    }

    deinit {
        EVP_CIPHER_CTX_free(pointer)
    }

    func addAuthenticatedData(_ data: [UInt8]) throws(CryptoError) {
        guard !data.isEmpty else { return }
        var written: Int32 = 0
        let result = encrypting
            ? EVP_EncryptUpdate(pointer, nil, &written, data, Int32(data.count))
            : EVP_DecryptUpdate(pointer, nil, &written, data, Int32(data.count))
        guard result == 1 else { throw CryptoError.openSSL("AES-GCM: additional data") }
    }

    func update(_ input: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !input.isEmpty else { return [] }
        guard input.count < Int(Int32.max) else { throw CryptoError(message: "AES-GCM: input too large") }
        var output = [UInt8](repeating: 0, count: input.count)
        var written: Int32 = 0
        let result = encrypting
            ? EVP_EncryptUpdate(pointer, &output, &written, input, Int32(input.count))
            : EVP_DecryptUpdate(pointer, &output, &written, input, Int32(input.count))
        guard result == 1 else { throw CryptoError.openSSL("AES-GCM: update") }
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
        guard result == 1 else { throw CryptoError.openSSL("AES-GCM: final") }
        return Array(output.prefix(Int(written)))
    }

    /// The tag of a sealed message, after `finish`.
    func tag() throws(CryptoError) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: Self.tagSize)
        guard EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagSize), &tag) == 1 else {
            throw CryptoError.openSSL("AES-GCM: reading the tag")
        }
        return tag
    }

    /// The tag an opened message must have; checked by `finish`.
    func expectTag(_ expected: [UInt8]) throws(CryptoError) {
        var tag = expected
        guard EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), &tag) == 1 else {
            throw CryptoError.openSSL("AES-GCM: setting the tag")
        }
    }
}
