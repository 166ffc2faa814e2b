import Crypto
import OpenPushCore
import Postgres

/// An app's VAPID key made when first needed: an app created before Web Push has none until
/// its first web push. Made here, stored only where none is yet (two workers may race: the
/// first one's key wins, and both read it back), sealed like the app's other secrets.
enum WebPushKeyStore {
    /// The app's stored VAPID key (sealed private key, base64url public key), made now if it
    /// had none; nil when there is no such app.
    static func ensureKey(appID: String, keyring: SecretKeyring,
                          in connection: PostgresConnection) throws -> (sealed: String, publicKey: String)? {
        let pair = try P256KeyPair.generate()
        let pem = try pair.privateKeyPEM()
        try connection.query("""
            UPDATE apps SET web_push_vapid_private_key = \(keyring.seal(pem)), web_push_vapid_public_key = \(Base64URL.encode(pair.publicKey))
            WHERE id = \(appID) AND web_push_vapid_private_key IS NULL
            """)
        let rows = try connection.query("""
            SELECT web_push_vapid_private_key, web_push_vapid_public_key FROM apps WHERE id = \(appID)
            """)
        guard let row = rows.first, let sealed: String = try row.decode("web_push_vapid_private_key"),
              let publicKey: String = try row.decode("web_push_vapid_public_key") else { return nil }
        return (sealed, publicKey)
    }
}
