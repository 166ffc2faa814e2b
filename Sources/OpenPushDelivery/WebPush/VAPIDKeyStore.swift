package import OpenPushCore
package import Postgres

/// Each app's VAPID key pair (`apps.web_push_vapid_private_key`, sealed, and
/// `web_push_vapid_public_key`). An app gets one when it is created; an app from before Web Push
/// gets one the first time it is needed — its view, the SDK's key route, a send — through
/// `vapidKey(forApp:…)`, which makes and stores it so that concurrent callers all end with the one
/// key stored.
package enum VAPIDKeyStore {
    /// The app's key pair, made and stored first when it has none; nil when there is no such app.
    /// The private key is opened with `keyring` (`SealedSecretError` when it does not open).
    package static func vapidKey(forApp appID: String, keyring: SecretKeyring,
                                 in connection: PostgresConnection) throws -> WebPushKeyPair? {
        guard let stored = try ensure(appID: appID, keyring: keyring, in: connection) else { return nil }
        return WebPushKeyPair(privateKeyPEM: try keyring.open(stored.sealed), publicKey: stored.publicKey)
    }

    package static func vapidKey(forApp appID: String, keyring: SecretKeyring,
                                 in database: PostgresPool) async throws -> WebPushKeyPair? {
        try await database.withConnection { try vapidKey(forApp: appID, keyring: keyring, in: $0) }
    }

    /// The app's public key, made first when it has none; nil when there is no such app.
    package static func publicKey(forApp appID: String, keyring: SecretKeyring,
                                  in connection: PostgresConnection) throws -> String? {
        try ensure(appID: appID, keyring: keyring, in: connection)?.publicKey
    }

    package static func publicKey(forApp appID: String, keyring: SecretKeyring,
                                  in database: PostgresPool) async throws -> String? {
        try await database.withConnection { try publicKey(forApp: appID, keyring: keyring, in: $0) }
    }

    /// Stores `pair` as the app's key (sealed with `keyring`), replacing the one it had.
    package static func replace(appID: String, with pair: WebPushKeyPair, keyring: SecretKeyring,
                                in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET web_push_vapid_private_key = \(keyring.seal(pair.privateKeyPEM)),
                            web_push_vapid_public_key = \(pair.publicKey)
            WHERE id = \(appID)
            """)
    }

    /// Whether the schema has the key columns yet (an app is created under an older schema in the
    /// middle of an upgrade, and in the upgrade tests).
    package static func hasColumns(in connection: PostgresConnection) throws -> Bool {
        let rows = try connection.query("""
            SELECT 1 FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'apps' AND column_name = 'web_push_vapid_public_key'
            """)
        return !rows.isEmpty
    }

    /// The stored (sealed) private key and the public key, made first when absent; nil when
    /// there is no such app. The `UPDATE … WHERE … IS NULL` lets one caller's key in; a caller
    /// that lost the race reads the winner's.
    package static func ensure(appID: String, keyring: SecretKeyring,
                               in connection: PostgresConnection) throws -> (sealed: String, publicKey: String)? {
        let read: PostgresQuery = """
            SELECT web_push_vapid_private_key AS sealed, web_push_vapid_public_key AS public_key FROM apps WHERE id = \(appID)
            """
        guard let row = try connection.query(read).first else { return nil }
        if let found = try pair(row) { return found }
        let made = try WebPushKeyPair.generate()
        let won = try connection.query("""
            UPDATE apps SET web_push_vapid_private_key = \(keyring.seal(made.privateKeyPEM)),
                            web_push_vapid_public_key = \(made.publicKey)
            WHERE id = \(appID) AND web_push_vapid_private_key IS NULL
            RETURNING web_push_vapid_private_key AS sealed, web_push_vapid_public_key AS public_key
            """)
        if let row = won.first, let stored = try pair(row) { return stored }
        guard let row = try connection.query(read).first, let stored = try pair(row) else {
            throw InvariantViolation("app \(appID) has no VAPID key after one was stored")
        }
        return stored
    }

    private static func pair(_ row: PostgresRow) throws -> (sealed: String, publicKey: String)? {
        guard let sealed: String = try row.decode("sealed"), let publicKey: String = try row.decode("public_key") else { return nil }
        return (sealed, publicKey)
    }
}
