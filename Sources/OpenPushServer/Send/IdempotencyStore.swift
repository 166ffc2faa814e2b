public import OpenPushCore
public import Postgres

/// A stored first answer to an idempotent request.
public struct IdempotentResponse: Sendable, Equatable {
    public var status: Int
    public var body: JSONValue
    public var requestDigest: [UInt8]?
    public var messageID: String?

    public init(status: Int, body: JSONValue, requestDigest: [UInt8]? = nil, messageID: String?) {
        self.status = status
        self.body = body
        self.requestDigest = requestDigest
        self.messageID = messageID
    }
}

/// Idempotency keys per (app, scope). Callers hold the app's send lock (see `RateLimiter`), so a
/// lookup followed by a save cannot race with another request for the same key.
public enum IdempotencyStore {
    public static let liveActivityStart = "live_activity_start"
    public static let liveActivityRetention: Double = 30 * 24 * 3600

    public static func find(appID: String, scope: String, key: String, notBefore: Double,
                            in connection: PostgresConnection) throws -> IdempotentResponse? {
        guard let row = try connection.query("""
            SELECT status, response::text AS response, request_digest, message_id FROM idempotency_keys
            WHERE app_id = \(appID) AND scope = \(scope) AND key = \(key) AND created_at > to_timestamp(\(notBefore))
            """).first else { return nil }
        return IdempotentResponse(status: try row.decode("status"),
                                  body: (try? JSONValue.parse(try row.decode("response", as: String.self))) ?? .null,
                                  requestDigest: try row.decode("request_digest"), messageID: try row.decode("message_id"))
    }

    /// Saves the first answer; an expired row with the same key is replaced.
    public static func save(appID: String, scope: String, key: String, response: IdempotentResponse, now: Double,
                            in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO idempotency_keys (app_id, scope, key, request_digest, status, response, message_id, created_at)
            VALUES (\(appID), \(scope), \(key), \(response.requestDigest), \(response.status), \(response.body.serialized)::jsonb,
                    \(response.messageID), to_timestamp(\(now)))
            ON CONFLICT (app_id, scope, key) DO UPDATE SET
                request_digest = EXCLUDED.request_digest, status = EXCLUDED.status, response = EXCLUDED.response,
                message_id = EXCLUDED.message_id, created_at = EXCLUDED.created_at
            """)
    }

    /// Deletes keys older than their retention; run periodically.
    @discardableResult
    public static func prune(scope: String, olderThan cutoff: Double, in database: PostgresPool) async throws -> Int {
        try await database.query("""
            DELETE FROM idempotency_keys WHERE scope = \(scope) AND created_at <= to_timestamp(\(cutoff))
            """).affectedRows
    }
}
