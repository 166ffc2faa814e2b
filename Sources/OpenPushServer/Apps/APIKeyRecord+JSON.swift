import OpenPushCore
import OpenPushDelivery

extension APIKeyRecord {
    /// A key as listed: never its value or digest. OneSignal's `ApiKeyToken` fields (`token_id`,
    /// `updated_at`, the allowlist OpenPush does not have) follow OpenPush's own, with no `null`
    /// among them: OneSignal's client refuses one there.
    var json: JSONObject {
        [
            "id": .string(id),
            "name": .string(name),
            "created_at": .string(Timestamp.iso8601(createdAt)),
            "rotated_at": rotatedAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
            "expires_at": expiresAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
            "token_id": .string(id),
            "updated_at": .string(Timestamp.iso8601(updatedAt ?? createdAt)),
            "ip_allowlist_mode": .string(APIKeyFields.IPAllowlistMode.disabled.rawValue),
            "ip_allowlist": [],
        ]
    }
}
