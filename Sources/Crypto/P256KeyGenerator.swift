import COpenSSL
import Synchronization

/// P-256 key generation contexts kept for reuse: making one (a provider lookup by the key's
/// type, the curve copied from the shared parameters) costs about a fifth of the generation, and
/// Web Push makes a key per push. A context is not thread-safe, so a generation takes one from
/// the pool, or makes one, and puts it back after; at most `capacity` wait idle.
final class P256KeyGenerator: Sendable {
    static let shared = P256KeyGenerator()
    private static let capacity = 16

    /// A context out of the pool belongs to the one generation that took it.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let idle = Mutex<[Context]>([])

    /// A new P-256 key pair; the caller frees it with `EVP_PKEY_free`.
    func generate() throws(CryptoError) -> OpaquePointer {
        let context: Context
        if let pooled = idle.withLock({ $0.popLast() }) {
            context = pooled
        } else {
            context = try Self.makeContext()
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context.pointer, &key) == 1, let key else {
            EVP_PKEY_CTX_free(context.pointer)
            throw CryptoError.openSSL("P-256 key generation")
        }
        let kept = idle.withLock { idle in
            guard idle.count < Self.capacity else { return false }
            idle.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
        return key
    }

    private static func makeContext() throws(CryptoError) -> Context {
        guard let pointer = EVP_PKEY_CTX_new_from_pkey(nil, FetchedAlgorithms.p256Parameters, nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        guard EVP_PKEY_keygen_init(pointer) == 1 else {
            EVP_PKEY_CTX_free(pointer)
            throw CryptoError.openSSL("P-256 key generation")
        }
        return Context(pointer: pointer)
    }
}
