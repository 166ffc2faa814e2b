package import OpenPushCore
package import Postgres

/// A stored first answer to an idempotent request.
package struct IdempotentResponse: Sendable, Equatable {
    package var status: Int
    package var body: JSONValue
    package var requestDigest: [UInt8]?
    package var messageID: String?

    package init(status: Int, body: JSONValue, requestDigest: [UInt8]? = nil, messageID: String?) {
        self.status = status
        self.body = body
        self.requestDigest = requestDigest
        self.messageID = messageID
    }
}

/// Idempotency keys per (app, scope, caller). The caller is who sent the key: the app's own
/// REST keys are one caller, each shared demo tenant's key another, so tenants that choose the
/// same key never replay each other's answers. Requests go through `IdempotentRequest`, which
/// holds the key's lock, so a lookup followed by a save cannot race with another request for the same key.
package enum IdempotencyStore {
    package static let liveActivityStart = "live_activity_start"
    package static let liveActivityRetention: Double = 30 * 24 * 3600

    /// The caller a REST key stands for: its tenant, or '' for the app's own keys.
    package static func caller(tenantID: String?) -> String {
        tenantID ?? ""
    }

    package static func find(appID: String, scope: String, caller: String, key: String, notBefore: Double,
                            in connection: PostgresConnection) throws -> IdempotentResponse? {
        try connection.query("""
            SELECT status, response::text AS response, request_digest, message_id FROM idempotency_keys
            WHERE app_id = \(appID) AND scope = \(scope) AND caller = \(caller) AND key = \(key)
              AND created_at > to_timestamp(\(notBefore))
            """).first.map(response)
    }

    /// Takes the key's lock until commit, then `find`s it, in one statement
    /// (`openpush_send_idempotency_find`): a repeat that waited for the lock sees the first answer.
    package static func lockAndFind(appID: String, scope: String, caller: String, key: String, notBefore: Double,
                                   in connection: PostgresConnection) throws -> IdempotentResponse? {
        try connection.query(prepared: """
            SELECT * FROM openpush_send_idempotency_find(\(appID), \(scope), \(caller), \(key), to_timestamp(\(notBefore)))
            """).first.map(response)
    }

    private static func response(_ row: PostgresRow) throws -> IdempotentResponse {
        IdempotentResponse(status: try row.decode("status"),
                           body: (try? JSONValue.parse(try row.decode("response", as: String.self))) ?? .null,
                           requestDigest: try row.decode("request_digest"), messageID: try row.decode("message_id"))
    }

    /// Saves the first answer; an expired row with the same key is replaced.
    package static func save(appID: String, scope: String, caller: String, key: String, response: IdempotentResponse,
                            now: Double, in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO idempotency_keys (app_id, scope, caller, key, request_digest, status, response, message_id,
                                          created_at)
            VALUES (\(appID), \(scope), \(caller), \(key), \(response.requestDigest), \(response.status),
                    \(response.body.serialized)::jsonb, \(response.messageID), to_timestamp(\(now)))
            ON CONFLICT (app_id, scope, caller, key) DO UPDATE SET
                request_digest = EXCLUDED.request_digest, status = EXCLUDED.status, response = EXCLUDED.response,
                message_id = EXCLUDED.message_id, created_at = EXCLUDED.created_at
            """)
    }

    /// Deletes keys older than their retention; run periodically.
    @discardableResult
    package static func prune(scope: String, olderThan cutoff: Double, in database: PostgresPool) async throws -> Int {
        try await database.query("""
            DELETE FROM idempotency_keys WHERE scope = \(scope) AND created_at <= to_timestamp(\(cutoff))
            """).affectedRows
    }
}
