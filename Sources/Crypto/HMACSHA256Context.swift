import COpenSSL

/// HMAC-SHA256 codes under changing keys through one `EVP_MAC_CTX`, copied from the shared
/// keyless context (`FetchedAlgorithms.hmacSHA256`): for a key schedule of several HMACs, such
/// as Web Push's, without fetching the digest or making a context for each.
/// Not thread-safe: one per message.
final class HMACSHA256Context {
    static let codeSize = 32

    private let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let pointer = EVP_MAC_CTX_dup(FetchedAlgorithms.hmacSHA256) else { throw CryptoError.openSSL("HMAC context") }
        self.pointer = pointer
    }

    deinit {
        EVP_MAC_CTX_free(pointer)
    }

    /// HMAC-SHA256 of `message` under `key`.
    func code(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.codeSize)
        var written = 0
        guard EVP_MAC_init(pointer, key, key.count, nil) == 1, EVP_MAC_update(pointer, message, message.count) == 1,
              EVP_MAC_final(pointer, &output, &written, output.count) == 1, written == Self.codeSize else {
            throw CryptoError.openSSL("HMAC-SHA256")
        }
        return output
    }
}
