/// An app's VAPID key pair as stored: the private key as a PKCS#8 PEM (sealed at rest), the public
/// key as browsers take it (`applicationServerKey`): base64url of the 65-byte uncompressed point.
package struct WebPushKeyPair: Sendable, Equatable {
    package var privateKeyPEM: String
    package var publicKey: String

    package init(privateKeyPEM: String, publicKey: String) {
        self.privateKeyPEM = privateKeyPEM
        self.publicKey = publicKey
    }
}
