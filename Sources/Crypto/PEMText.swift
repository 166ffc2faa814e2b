import COpenSSL

/// PEM text as OpenSSL writes it (a certificate, a key) into a memory BIO.
enum PEMText {
    /// What `write` wrote into a fresh memory BIO; `write` returns OpenSSL's 1 for success.
    static func written(_ write: (OpaquePointer?) -> Int32) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw CryptoError.openSSL("PEM write") }
        var data: UnsafeMutablePointer<CChar>?
        // BIO_get_mem_data is a macro over BIO_ctrl.
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
