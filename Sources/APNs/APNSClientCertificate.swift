package import Crypto

/// Certificate-auth credentials: an app's APNs certificate and its private key. Its pushes go
/// over TLS connections that present it, with no `authorization` header. Two are the same when
/// their certificates are (DER), so a renewed certificate gets fresh connections.
package struct APNSClientCertificate: Sendable, Hashable {
    package let identity: TLSClientIdentity

    /// - Parameter pem: the certificate's PEM followed by its private key's PEM (unencrypted).
    package init(pem: String) throws(CryptoError) {
        identity = try TLSClientIdentity(pem: pem)
    }

    package static func == (lhs: APNSClientCertificate, rhs: APNSClientCertificate) -> Bool {
        lhs.identity.certificateDER == rhs.identity.certificateDER
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(identity.certificateDER)
    }
}
