/// The body of `POST /apps/{app_id}/auth/tokens` and `PATCH …/auth/tokens/{token_id}`: OneSignal's
/// `CreateApiKeyRequest`/`UpdateApiKeyRequest` (`name`, `ip_allowlist_mode`, `ip_allowlist`) and
/// OpenPush's `expires_in_seconds` (create only). OpenPush does not restrict keys by address, so
/// `ip_allowlist_mode` may only be `disabled` and `ip_allowlist` empty: an allowlist it would
/// silently not enforce is refused instead.
package struct APIKeyFields: Sendable, Equatable {
    package enum Purpose: Sendable {
        case create
        case update
    }

    /// OneSignal's `ip_allowlist_mode`; every OpenPush key is `disabled`.
    package enum IPAllowlistMode: String, Sendable, CaseIterable {
        case disabled
        case explicit
    }

    package static let nameMaxLength = 128

    package var name: String?
    /// Seconds (`KeyLifetime.allowedSeconds`); nil never expires.
    package var lifetime: Int64?

    package init(name: String? = nil, lifetime: Int64? = nil) {
        self.name = name
        self.lifetime = lifetime
    }

    package static func read(_ object: JSONObject, for purpose: Purpose) throws(InvalidInput) -> APIKeyFields {
        var reader = FieldReader(object)
        var fields = APIKeyFields()
        switch purpose {
        case .create:
            fields.name = reader.string("name", required: true, maxLength: nameMaxLength)
            fields.lifetime = reader.integer("expires_in_seconds", in: KeyLifetime.allowedSeconds)
        case .update:
            if reader.has("name") { fields.name = reader.string("name", required: true, maxLength: nameMaxLength) }
        }
        if let mode = reader.choice("ip_allowlist_mode", among: IPAllowlistMode.allCases), mode != .disabled {
            reader.problem("ip_allowlist_mode must be disabled: OpenPush does not restrict keys by IP address")
        }
        if let list = reader.stringArray("ip_allowlist"), !list.isEmpty {
            reader.problem("ip_allowlist must be empty: OpenPush does not restrict keys by IP address")
        }
        reader.rejectUnknownFields()
        try reader.finish()
        return fields
    }
}
