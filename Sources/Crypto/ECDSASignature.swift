import COpenSSL

/// Converts ECDSA signatures between OpenSSL's DER `SEQUENCE { r INTEGER, s INTEGER }` and the
/// fixed-width `r‖s` form JOSE uses (RFC 7518 §3.4). The bignum round trip handles DER's
/// sign-padding byte and short integers, the cases a hand-written slicer gets wrong.
enum ECDSASignature {
    /// DER → `r‖s`, each left-padded with zeros to `coordinateSize` bytes.
    static func raw(fromDER der: [UInt8], coordinateSize: Int = 32) throws(CryptoError) -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw CryptoError.openSSL("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }

        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var output = [UInt8](repeating: 0, count: 2 * coordinateSize)
        let written = output.withUnsafeMutableBufferPointer { buffer in
            (BN_bn2binpad(r, buffer.baseAddress, Int32(coordinateSize)),
             BN_bn2binpad(s, buffer.baseAddress! + coordinateSize, Int32(coordinateSize)))
        }
        guard written.0 == Int32(coordinateSize), written.1 == Int32(coordinateSize) else {
            throw CryptoError(message: "ECDSA signature component longer than \(coordinateSize) bytes")
        }
        return output
    }

    /// `r‖s` → DER, for verifying a JOSE signature with libcrypto.
    static func der(fromRaw raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard raw.count % 2 == 0, !raw.isEmpty else {
            throw CryptoError(message: "raw ECDSA signature must have an even, non-zero length")
        }
        let half = raw.count / 2
        guard let signature = ECDSA_SIG_new() else { throw CryptoError.openSSL("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(half), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        // ECDSA_SIG_set0 takes ownership of r and s only on success.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw CryptoError.openSSL("ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw CryptoError.openSSL("i2d_ECDSA_SIG") }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw CryptoError.openSSL("i2d_ECDSA_SIG") }
        return output
    }
}
