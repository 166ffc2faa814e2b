package import OpenPushCore
package import Postgres

/// The secrets OpenPush keeps at rest — each app's `.p8` (`apps.apns_p8`) or certificate and
/// key (`apps.apns_certificate`), its FCM service account (`apps.fcm_service_account`), its VAPID private key
/// (`apps.web_push_vapid_private_key`), and each webhook's
/// signing secrets (`webhooks.secret`, `previous_secret`) — as a whole: what a start-up checks,
/// and what `openpush secrets rotate` re-seals.
package enum SealedSecrets {
    /// What a rotation did.
    package struct Rotation: Sendable, Equatable {
        /// The key everything is sealed with now.
        package var keyID: String
        package var resealedKeys = 0
        package var resealedWebhookSecrets = 0
        /// Apps' VAPID private keys (every app has one).
        package var resealedVAPIDKeys = 0
        /// Values that were sealed with the current key already.
        package var unchanged = 0
        /// Apps whose pushes were held because their `.p8` did not open, now sending again.
        package var resumedApps = 0
    }

    /// Why a rotation changed nothing.
    package struct RotationRefusal: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Every stored secret, as stored, with where to write it back.
    private static let stored: PostgresQuery = """
        SELECT 'app' AS kind, id, apns_p8 AS value FROM apps WHERE apns_p8 IS NOT NULL
        UNION ALL SELECT 'app_certificate', id, apns_certificate FROM apps WHERE apns_certificate IS NOT NULL
        UNION ALL SELECT 'app_fcm', id, fcm_service_account FROM apps WHERE fcm_service_account IS NOT NULL
        UNION ALL SELECT 'app_vapid', id, web_push_vapid_private_key FROM apps WHERE web_push_vapid_private_key IS NOT NULL
        UNION ALL SELECT 'webhook', id, secret FROM webhooks
        UNION ALL SELECT 'webhook_previous', id, previous_secret FROM webhooks WHERE previous_secret IS NOT NULL
        """

    /// Warns when nothing is sealed; then, in the background (a database that is down does not
    /// hold up the start), names every key that sealed a stored value but is not configured
    /// (those apps' pushes and webhooks fail until it is). Never fails the start.
    package static func checkAtStart(_ services: Services, logger: Logger) {
        if !services.configuration.secretKeyring.seals {
            logger.warning("OPENPUSH_SECRET_KEY is not set: .p8 keys and webhook secrets are stored in clear in the database")
        }
        Task { await checkStoredKeys(services, logger: logger) }
    }

    static func checkStoredKeys(_ services: Services, logger: Logger) async {
        let keyring = services.configuration.secretKeyring
        do {
            let rows = try await services.database.withConnection { connection in
                try connection.query("""
                    SELECT split_part(value, ':', 3) AS key_id, count(*)::int8 AS values
                    FROM (\(stored)) AS s WHERE value LIKE 'sealed:%' GROUP BY 1 ORDER BY 1
                    """).map { (try $0.decode("key_id", as: String.self), try $0.decode("values", as: Int64.self)) }
            }
            for (keyID, count) in rows where keyring.key(withID: keyID) == nil {
                logger.error("stored secrets are sealed with a key this process does not have: add it to OPENPUSH_SECRET_KEYS_OLD",
                             ["secret.key_id": keyID, "secret.count": String(count)])
            }
            let resumed = try await services.database.transaction { try resumeOpenable(keyring: keyring, in: $0) }
            if resumed > 0 { logger.info("resumed apps whose .p8 key opens again", ["apps.count": String(resumed)]) }
        } catch {
            logger.warning("could not check the stored secrets' keys", ["error": "\(error)"])
        }
    }

    /// Re-seals every stored secret that is in clear or sealed with an older key with the
    /// current key, in one transaction: either all of them are re-sealed or (when one does not
    /// open) none is, and the refusal names the keys missing.
    package static func rotate(keyring: SecretKeyring, in database: PostgresPool) async throws -> Rotation {
        guard let current = keyring.current else {
            throw RotationRefusal(description: "OPENPUSH_SECRET_KEY is not set: there is no key to seal with")
        }
        return try await database.transaction { connection in
            // Locks the rows, so a secret rotated by a request meanwhile is not overwritten with its old value.
            try connection.query("""
                SELECT 1 FROM apps WHERE apns_p8 IS NOT NULL OR apns_certificate IS NOT NULL OR fcm_service_account IS NOT NULL
                                      OR web_push_vapid_private_key IS NOT NULL
                FOR UPDATE
                """)
            try connection.query("SELECT 1 FROM webhooks FOR UPDATE")
            var rotation = Rotation(keyID: current.id)
            var problems: [String: Int] = [:]
            var updates: [PostgresQuery] = []
            for row in try connection.query(stored) {
                let (kind, id, value): (String, String, String) = (try row.decode("kind"), try row.decode("id"), try row.decode("value"))
                guard keyring.needsResealing(value) else {
                    rotation.unchanged += 1
                    continue
                }
                let secret: String
                do {
                    secret = try keyring.open(value)
                } catch {
                    problems["\(error)", default: 0] += 1
                    continue
                }
                let sealed = keyring.seal(secret)
                switch kind {
                case "app":
                    // `updated_at` stays: the key itself is the same, so its connections are too.
                    updates.append("UPDATE apps SET apns_p8 = \(sealed) WHERE id = \(id)")
                    rotation.resealedKeys += 1
                case "app_certificate":
                    updates.append("UPDATE apps SET apns_certificate = \(sealed) WHERE id = \(id)")
                    rotation.resealedKeys += 1
                case "app_fcm":
                    updates.append("UPDATE apps SET fcm_service_account = \(sealed) WHERE id = \(id)")
                    rotation.resealedKeys += 1
                case "app_vapid":
                    updates.append("UPDATE apps SET web_push_vapid_private_key = \(sealed) WHERE id = \(id)")
                    rotation.resealedVAPIDKeys += 1
                case "webhook":
                    updates.append("UPDATE webhooks SET secret = \(sealed) WHERE id = \(id)")
                    rotation.resealedWebhookSecrets += 1
                default:
                    updates.append("UPDATE webhooks SET previous_secret = \(sealed) WHERE id = \(id)")
                    rotation.resealedWebhookSecrets += 1
                }
            }
            guard problems.isEmpty else {
                let named = problems.sorted { $0.key < $1.key }.map { "\($0.value) value(s) \($0.key)" }
                throw RotationRefusal(description: "nothing was re-sealed: " + named.joined(separator: "; "))
            }
            for update in updates { try connection.query(update) }
            rotation.resumedApps = try resumeOpenable(keyring: keyring, in: connection)
            return rotation
        }
    }

    /// Lifts the pause of apps held because their `.p8` (or certificate) was sealed with a key that was missing,
    /// when it opens now; their held pushes go out with the next claims.
    private static func resumeOpenable(keyring: SecretKeyring, in connection: PostgresConnection) throws -> Int {
        let paused = try connection.query("""
            SELECT id, COALESCE(apns_p8, apns_certificate) AS stored FROM apps
            WHERE apns_paused_at IS NOT NULL AND apns_status_reason = \(SealedSecretError.unknownKey("").reason)
            FOR UPDATE
            """)
        var resumed = 0
        for row in paused {
            let id: String = try row.decode("id")
            let stored: String? = try row.decode("stored")
            guard let stored, (try? keyring.open(stored)) != nil else { continue }
            try connection.query("UPDATE apps SET apns_paused_at = NULL WHERE id = \(id)")
            try MessageStore.notifyWorkers(appID: id, in: connection)
            resumed += 1
        }
        return resumed
    }
}
