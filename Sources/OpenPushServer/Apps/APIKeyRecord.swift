import OpenPushDelivery
package import Postgres

/// One REST API key of an app, without its digest.
package struct APIKeyRecord: Sendable, Equatable {
    package var id: String
    package var name: String
    /// Unix seconds.
    package var createdAt: Double
    package var rotatedAt: Double?
    /// The last rename or rotation; nil before either.
    package var updatedAt: Double?
    /// Unix seconds; nil never expires.
    package var expiresAt: Double?

    package static let columns: PostgresQuery = """
        SELECT id, name, extract(epoch FROM created_at)::float8 AS created_at,
               extract(epoch FROM rotated_at)::float8 AS rotated_at, extract(epoch FROM updated_at)::float8 AS updated_at,
               extract(epoch FROM expires_at)::float8 AS expires_at
        FROM api_keys
        """

    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        name = try row.decode("name")
        createdAt = try row.decode("created_at")
        rotatedAt = try row.decode("rotated_at")
        updatedAt = try row.decode("updated_at")
        expiresAt = try row.decode("expires_at")
    }
}

/// A key and its value, which the caller sees this once.
package struct IssuedAPIKey: Sendable {
    package var key: APIKeyRecord
    package var token: String
}

/// Why a key operation did not happen.
package enum APIKeyRefusal: Error, Sendable, Equatable {
    case unknownApp(String)
    case unknownKey(String)
    /// Deleting it would leave the app without a REST key.
    case lastKey(String)
}
