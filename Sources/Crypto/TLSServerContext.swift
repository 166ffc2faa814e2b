import COpenSSL

/// Server TLS settings shared by many connections: a certificate and key, TLS 1.2 or later,
/// and ALPN selection from the protocols given (server preference order).
///
/// `@unchecked Sendable`: the SSL_CTX is configured once in `init` and only read afterwards.
package final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer
    /// Protocols in preference order, as bytes, read by the ALPN callback.
    let protocols: [[UInt8]]

    /// - Parameters:
    ///   - certificatePEM: the leaf certificate, optionally followed by its chain.
    ///   - alpn: protocols the server speaks, most preferred first; a client offering none of
    ///     them gets no ALPN answer.
    ///   - clientCAFile: PEM CA certificates client certificates are verified against. With it
    ///     the server asks every client for a certificate; one without may still connect, one
    ///     whose certificate does not verify fails the handshake.
    package init(certificatePEM: String, privateKeyPEM: String, alpn: [String] = ["h2"],
                 clientCAFile: String? = nil) throws(CryptoError) {
        ERR_clear_error()
        protocols = alpn.map { Array($0.utf8) }
        guard protocols.allSatisfy({ (1...255).contains($0.count) }) else {
            throw CryptoError(message: "bad ALPN name in \(alpn)")
        }
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw CryptoError.openSSL("SSL_CTX_new") }
        // Owned from here on, so every later failure frees it through deinit.
        self.context = context

        guard openpush_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw CryptoError.openSSL("SSL_CTX_set_min_proto_version")
        }
        // Non-blocking writers retry with a buffer that may have moved and grown.
        _ = openpush_SSL_CTX_set_mode(
            context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE) | Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))

        let certificateLoaded = Self.withMemoryBIO(certificatePEM) { bio -> Bool in
            guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { return false }
            defer { X509_free(certificate) }
            guard SSL_CTX_use_certificate(context, certificate) == 1 else { return false }
            // Any further certificates in the PEM are the chain.
            while let extra = PEM_read_bio_X509(bio, nil, nil, nil) {
                // SSL_CTX_add0_chain_cert takes ownership on success.
                if SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 0, UnsafeMutableRawPointer(extra)) != 1 {
                    X509_free(extra)
                    return false
                }
            }
            ERR_clear_error()  // the loop ends on a "no start line" error
            return true
        }
        guard certificateLoaded else { throw CryptoError.openSSL("cannot load the server certificate") }
        let keyLoaded = Self.withMemoryBIO(privateKeyPEM) { bio -> Bool in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { return false }
            defer { EVP_PKEY_free(key) }
            return SSL_CTX_use_PrivateKey(context, key) == 1
        }
        guard keyLoaded else { throw CryptoError.openSSL("cannot load the server private key") }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw CryptoError.openSSL("the private key does not match the certificate")
        }
        if let clientCAFile {
            guard SSL_CTX_load_verify_locations(context, clientCAFile, nil) == 1 else {
                throw CryptoError.openSSL("cannot load the client CA file \(clientCAFile)")
            }
            // The CA names go in the certificate request; the list is owned by the context.
            if let names = SSL_load_client_CA_file(clientCAFile) { SSL_CTX_set_client_CA_list(context, names) }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        }
        if !protocols.isEmpty {
            SSL_CTX_set_alpn_select_cb(context, selectALPN, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    private static func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer?) -> T) -> T {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { buffer in
            let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count))
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}

/// ALPN selection: the first of the server's protocols that the client offers. The context
/// outlives every SSL made from it, so the unretained pointer is valid here.
private func selectALPN(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let offered, let argument else { return SSL_TLSEXT_ERR_NOACK }
    let server = Unmanaged<TLSServerContext>.fromOpaque(argument).takeUnretainedValue()
    for wanted in server.protocols {
        var index = 0
        while index < Int(offeredLength) {
            let length = Int(offered[index])
            guard index + 1 + length <= Int(offeredLength) else { break }
            if length == wanted.count, Array(UnsafeBufferPointer(start: offered + index + 1, count: length)) == wanted {
                // Points into the client's list, which OpenSSL keeps until the handshake is done.
                out?.pointee = UnsafePointer(offered + index + 1)
                outLength?.pointee = UInt8(length)
                return SSL_TLSEXT_ERR_OK
            }
            index += 1 + length
        }
    }
    return SSL_TLSEXT_ERR_NOACK
}
