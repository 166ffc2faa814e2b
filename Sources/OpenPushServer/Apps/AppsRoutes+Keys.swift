import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// An app's REST keys (`/auth/tokens`, OneSignal's API key methods) and its SDK key. New and
/// rotated values are shown once. Every change is audited, its actor the organization key.
extension AppsRoutes {
    static func registerKeys(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/auth/tokens", createToken)
        router.add(.get, "/apps/{app_id}/auth/tokens", listTokens)
        router.add(.patch, "/apps/{app_id}/auth/tokens/{token_id}", updateToken)
        router.add(.delete, "/apps/{app_id}/auth/tokens/{token_id}", deleteToken)
        router.add(.post, "/apps/{app_id}/auth/tokens/{token_id}/rotate", rotateToken)
        router.add(.post, "/apps/{app_id}/sdk_key/rotate", rotateSDKKey)
    }

    @Sendable static func createToken(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let fields = try APIKeyFields.read(try context.jsonObject(), for: .create)
        let services = context.services
        let issued = try await answeringRefusals {
            try await APIKeyStore.create(appID: context.pathParameter("app_id"), name: fields.name ?? "", lifetime: fields.lifetime,
                                         now: services.now(), audit: context.auditStamp(.organizationKey), in: services.database)
        }
        return .json(.object(issued.json), status: 201, headers: secretHeaders)
    }

    @Sendable static func listTokens(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let keys = try await answeringRefusals {
            try await APIKeyStore.list(appID: context.pathParameter("app_id"), in: context.services.database)
        }
        return .json(["tokens": .array(keys.map { .object($0.json) })])
    }

    /// OneSignal's `update_api_key`: renames the key; answers the key as listed (a JSON object,
    /// never `204`: OneSignal's client parses one).
    @Sendable static func updateToken(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let fields = try APIKeyFields.read(try context.jsonObject(), for: .update)
        let services = context.services
        let key = try await answeringRefusals {
            try await APIKeyStore.update(appID: context.pathParameter("app_id"), keyID: context.pathParameter("token_id"),
                                         name: fields.name, now: services.now(), audit: context.auditStamp(.organizationKey),
                                         in: services.database)
        }
        return .json(.object(key.json))
    }

    @Sendable static func deleteToken(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let services = context.services
        try await answeringRefusals {
            try await APIKeyStore.delete(appID: context.pathParameter("app_id"), keyID: context.pathParameter("token_id"),
                                         now: services.now(), audit: context.auditStamp(.organizationKey), in: services.database)
        }
        return .json(["success": true])
    }

    @Sendable static func rotateToken(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let services = context.services
        let issued = try await answeringRefusals {
            try await APIKeyStore.rotate(appID: context.pathParameter("app_id"), keyID: context.pathParameter("token_id"),
                                         now: services.now(), audit: context.auditStamp(.organizationKey), in: services.database)
        }
        var body = issued.json
        body["rotated_at"] = issued.key.json["rotated_at"]
        return .json(.object(body), headers: secretHeaders)
    }

    @Sendable static func rotateSDKKey(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let id = context.pathParameter("app_id")
        let services = context.services
        guard let sdkKey = try await AppStore.rotateSDKKey(id, now: services.now(), audit: context.auditStamp(.organizationKey),
                                                           in: services.database) else {
            throw Authentication.unknownApp(id)
        }
        return .json(["sdk_key": .string(sdkKey)], headers: secretHeaders)
    }

    /// Runs a key operation, answering its refusals as `404` or `409`.
    private static func answeringRefusals<Value>(_ operation: () async throws -> Value) async throws -> Value {
        do {
            return try await operation()
        } catch let refusal as APIKeyRefusal {
            switch refusal {
            case .unknownApp(let id):
                throw Authentication.unknownApp(id)
            case .unknownKey(let id):
                throw APIError.notFound("unknown token '\(id)'")
            case .lastKey:
                throw APIError(status: 409, "an app must keep at least one REST key: create another before deleting this one")
            }
        }
    }
}

extension IssuedAPIKey {
    /// The key with its value, which the caller sees this once; `expires_at` only when it
    /// expires. OneSignal's `CreateApiKeyResponse` names them `token_id` and `formatted_token`.
    var json: JSONObject {
        var body: JSONObject = ["id": .string(key.id), "name": .string(key.name), "token": .string(token),
                                "created_at": key.json["created_at"] ?? .null]
        if key.expiresAt != nil { body["expires_at"] = key.json["expires_at"] }
        body["token_id"] = .string(key.id)
        body["formatted_token"] = .string(token)
        return body
    }
}
