package import Crypto

/// How a provider proves itself to APNs: a `.p8` key's provider token (JWT), or a client
/// certificate presented on the TLS connection. Pools are per credential, so two keys, two
/// teams or two certificates never share a connection (APNs binds a connection to the team
/// and topics of its first push).
package enum APNSCredential: Sendable, Hashable {
    case token(APNSProviderKey)
    case certificate(APNSClientCertificate)

    /// A token credential.
    package init(keyID: String, teamID: String, signingKey: P256SigningKey) {
        self = .token(APNSProviderKey(keyID: keyID, teamID: teamID, signingKey: signingKey))
    }

    /// The provider key of a token credential; nil for a certificate.
    package var providerKey: APNSProviderKey? {
        if case .token(let key) = self { return key }
        return nil
    }

    /// The certificate of a certificate credential; nil for a token.
    package var clientCertificate: APNSClientCertificate? {
        if case .certificate(let certificate) = self { return certificate }
        return nil
    }
}
