import COpenSSL

/// P-256 specifics over an `EVP_PKEY`: the curve check, the public point in its uncompressed
/// form and back, and the private key's own consistency check.
extension EVPKey {
    /// DER of a P-256 SubjectPublicKeyInfo up to the point (id-ecPublicKey, prime256v1, a
    /// 66-byte BIT STRING): with a 65-byte uncompressed point after it, a whole SPKI.
    private static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
        0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The curve name OpenSSL gives `key`'s group (`prime256v1` for P-256).
    static func curveName(of key: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &buffer, buffer.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func isP256(_ key: OpaquePointer) -> Bool {
        EVP_PKEY_is_a(key, "EC") == 1 && curveName(of: key) == "prime256v1"
    }

    /// The public point of `key`, uncompressed (65 bytes).
    static func uncompressedPublicKey(of key: OpaquePointer) -> [UInt8]? {
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, "encoded-pub-key", &point, point.count, &length) == 1,
              length == 65, point[0] == 0x04 else {
            ERR_clear_error()
            return nil
        }
        return point
    }

    /// The SPKI DER of an uncompressed P-256 point; nil when it is not 65 bytes starting 0x04.
    static func p256SubjectPublicKeyInfo(uncompressed point: [UInt8]) -> [UInt8]? {
        guard point.count == 65, point[0] == 0x04 else { return nil }
        return p256SPKIPrefix + point
    }

    /// The public key of an uncompressed point; nil unless it is a point on P-256 (OpenSSL
    /// checks the coordinates are below the prime and satisfy the curve equation when it sets
    /// the point). The caller frees it. A copy of the shared P-256 parameters given the point:
    /// building the curve from its name, or decoding DER, costs several times the rest.
    static func p256PublicKey(uncompressed point: [UInt8]) -> OpaquePointer? {
        guard point.count == 65, point[0] == 0x04 else { return nil }
        guard let key = EVP_PKEY_dup(FetchedAlgorithms.p256Parameters) else {
            ERR_clear_error()
            return nil
        }
        guard EVP_PKEY_set1_encoded_public_key(key, point, point.count) == 1 else {
            EVP_PKEY_free(key)
            ERR_clear_error()
            return nil
        }
        return key
    }

    /// Whether `key`'s private scalar is in range and its public point is the one it derives.
    static func isConsistentPrivateKey(_ key: OpaquePointer) -> Bool {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let consistent = EVP_PKEY_check(context) == 1
        if !consistent { ERR_clear_error() }
        return consistent
    }
}
