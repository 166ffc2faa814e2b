/// What an app's web pushes are signed with (RFC 8292): its VAPID key pair, opened from the
/// sealed column, and the `sub` claim (the app's `web_push_subject`, else
/// `OPENPUSH_WEB_PUSH_SUBJECT`).
package struct WebPushVAPIDKey: Sendable, Equatable {
    /// The private key as a PKCS#8 PEM.
    package var privateKeyPEM: String
    /// base64url of the 65-byte uncompressed public key (the `k=` of the `Authorization` header).
    package var publicKey: String
    package var subject: String

    package init(privateKeyPEM: String, publicKey: String, subject: String) {
        self.privateKeyPEM = privateKeyPEM
        self.publicKey = publicKey
        self.subject = subject
    }
}
