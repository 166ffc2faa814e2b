import COpenSSL

/// The public half of an APNs token-auth key, for checking ES256 signatures (the local APNs
/// simulator verifies provider tokens with it).
///
/// `@unchecked Sendable`: the EVP_PKEY is never mutated after `init`, and each verification
/// gets its own EVP_MD_CTX.
package final class P256VerifyingKey: @unchecked Sendable {
    private let key: OpaquePointer
    package let publicKeyDER: [UInt8]

    /// - Parameter publicKeyDER: a DER SubjectPublicKeyInfo, e.g. `P256SigningKey.publicKeyDER`.
    package init(publicKeyDER: [UInt8]) throws(CryptoError) {
        ERR_clear_error()
        let parsed = publicKeyDER.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.openSSL("not a DER public key") }
        guard EVP_PKEY_is_a(parsed, "EC") == 1, EVPKey.curveName(of: parsed) == "prime256v1" else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "not a P-256 public key")
        }
        key = parsed
        self.publicKeyDER = publicKeyDER
    }

    /// The key of a 65-byte uncompressed point (a VAPID `k=`); nil unless it is on P-256.
    package init?(uncompressedPoint point: [UInt8]) {
        guard let spki = EVPKey.p256SubjectPublicKeyInfo(uncompressed: point),
              let parsed = EVPKey.p256PublicKey(uncompressed: point) else { return nil }
        key = parsed
        publicKeyDER = spki
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Checks a raw 64-byte `r‖s` ES256 signature (RFC 7518 §3.4) over `message`.
    package func isValidES256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard signature.count == 64, let der = try? ECDSASignature.der(fromRaw: signature) else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }
}
