import COpenSSL

/// OpenSSL 3 implementations fetched from the default provider once per process. Passing
/// `EVP_aes_128_gcm()` or a name makes OpenSSL look the implementation up again on every call
/// (name map, method store, their locks), which costs more than a short message's work.
/// Fetched algorithms and parameter-only keys are immutable once made, so one copy serves every
/// thread; each use still makes its own context, since contexts are not thread-safe.
enum FetchedAlgorithms {
    nonisolated(unsafe) static let aes128GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)

    /// A context holding HMAC with SHA-256 and no key: `EVP_MAC_CTX_dup` of it skips fetching
    /// the digest by name for each message.
    nonisolated(unsafe) static let hmacSHA256: OpaquePointer? = {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { return nil }
        // The context keeps its own reference to the MAC.
        defer { EVP_MAC_free(mac) }
        guard let context = EVP_MAC_CTX_new(mac) else { return nil }
        var digestKey = Array("digest".utf8CString), digest = Array("SHA256".utf8CString)
        let set = digestKey.withUnsafeMutableBufferPointer { digestKey in
            digest.withUnsafeMutableBufferPointer { digest in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(digestKey.baseAddress, digest.baseAddress, 0),
                    OSSL_PARAM_construct_end(),
                ]
                return EVP_MAC_CTX_set_params(context, &parameters) == 1
            }
        }
        guard set else {
            EVP_MAC_CTX_free(context)
            ERR_clear_error()
            return nil
        }
        return context
    }()

    /// P-256 domain parameters with no key: a template that key generation and point import
    /// copy the curve from, instead of building it from its name (the curve's Montgomery
    /// constants and inversions) for every key.
    nonisolated(unsafe) static let p256Parameters: OpaquePointer? = {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var parameters: OpaquePointer?
        guard EVP_PKEY_paramgen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_paramgen(context, &parameters) == 1 else {
            ERR_clear_error()
            return nil
        }
        return parameters
    }()
}
