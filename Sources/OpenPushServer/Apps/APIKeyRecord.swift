import OpenPushDelivery
public import Postgres

/// One REST API key of an app, without its digest.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Unix seconds.
    public var createdAt: Double
    public var rotatedAt: Double?
    /// Unix seconds; nil never expires.
    public var expiresAt: Double?

    public static let columns: PostgresQuery = """
        SELECT id, name, extract(epoch FROM created_at)::float8 AS created_at,
               extract(epoch FROM rotated_at)::float8 AS rotated_at,
               extract(epoch FROM expires_at)::float8 AS expires_at
        FROM api_keys
        """

    public init(row: PostgresRow) throws {
        id = try row.decode("id")
        name = try row.decode("name")
        createdAt = try row.decode("created_at")
        rotatedAt = try row.decode("rotated_at")
        expiresAt = try row.decode("expires_at")
    }
}

/// A key and its value, which the caller sees this once.
public struct IssuedAPIKey: Sendable {
    public var key: APIKeyRecord
    public var token: String
}

/// Why a key operation did not happen.
public enum APIKeyRefusal: Error, Sendable, Equatable {
    case unknownApp(String)
    case unknownKey(String)
    /// Deleting it would leave the app without a REST key.
    case lastKey(String)
}
