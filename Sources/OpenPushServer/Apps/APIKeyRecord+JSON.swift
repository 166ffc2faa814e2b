import OpenPushCore
import OpenPushDelivery

extension APIKeyRecord {
    /// A key as listed: never its value or digest.
    var json: JSONObject {
        [
            "id": .string(id),
            "name": .string(name),
            "created_at": .string(Timestamp.iso8601(createdAt)),
            "rotated_at": rotatedAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
            "expires_at": expiresAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
        ]
    }
}
