import COpenSSL

/// Client TLS settings shared by many connections: TLS 1.2 or later, peer verification
/// against the system trust store (plus an optional CA file), ALPN, and optionally a client
/// certificate every connection presents.
///
/// `@unchecked Sendable`: the SSL_CTX is configured once in `init` and only read afterwards,
/// which OpenSSL allows from any thread (`SSL_new` takes its own reference).
package final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer

    /// - Parameters:
    ///   - caFile: extra PEM CA certificates to trust, e.g. a test or sandbox root.
    ///   - alpn: protocols to offer, most preferred first; APNs needs `["h2"]`.
    ///   - identity: the certificate and key to present when the server asks for one.
    package init(caFile: String? = nil, alpn: [String] = ["h2"], identity: TLSClientIdentity? = nil) throws(CryptoError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw CryptoError.openSSL("SSL_CTX_new") }
        // Owned from here on, so every later failure frees it through deinit.
        self.context = context

        guard openpush_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw CryptoError.openSSL("SSL_CTX_set_min_proto_version")
        }
        // Non-blocking writers retry with whatever is pending, which may have grown or moved
        // since the attempt that would have blocked; blocking writers are unaffected.
        _ = openpush_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_set_default_verify_paths(context) == 1 else {
            throw CryptoError.openSSL("SSL_CTX_set_default_verify_paths")
        }
        if let caFile, SSL_CTX_load_verify_locations(context, caFile, nil) != 1 {
            throw CryptoError.openSSL("cannot load CA file \(caFile)")
        }
        if let identity {
            // Both take their own references.
            guard SSL_CTX_use_certificate(context, identity.certificate) == 1,
                  SSL_CTX_use_PrivateKey(context, identity.privateKey) == 1,
                  SSL_CTX_check_private_key(context) == 1
            else { throw CryptoError.openSSL("cannot use the client certificate") }
        }
        if !alpn.isEmpty {
            var wire: [UInt8] = []
            for name in alpn {
                let bytes = Array(name.utf8)
                guard (1...255).contains(bytes.count) else { throw CryptoError(message: "bad ALPN name \(name)") }
                wire.append(UInt8(bytes.count))
                wire.append(contentsOf: bytes)
            }
            // Unlike most of OpenSSL, this one returns 0 on success.
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw CryptoError.openSSL("SSL_CTX_set_alpn_protos")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }
}
