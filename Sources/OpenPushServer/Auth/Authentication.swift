import HTTPServer
import OpenPushCore
package import OpenPushDelivery
import Postgres

/// Who is calling an app's routes with a REST key: the app, the key, and — on a shared demo
/// app — the tenant the key belongs to (which then sees only its own devices).
package struct RESTPrincipal: Sendable {
    package var app: AppRecord
    package var keyID: String
    package var tenantID: String?
}

/// The checks every authenticated route starts with. Messages are the contract's.
package enum Authentication {
    package static let badRESTKey =
        "bad API key — send `Authorization: Key <your app's REST API key>` or X-OP-API-Key"
    package static let badOrganizationKey =
        "bad organization key — send `Authorization: Key <OPENPUSH_ORG_API_KEY>`"
    package static let badSDKKey = "bad SDK key — send X-OP-SDK-Key with your app's SDK key"

    package static func unknownApp(_ id: String) -> APIError { .notFound("unknown app '\(id)'") }

    static func presentedKeys(_ context: RouteContext) -> [String] {
        PresentedKey.candidates(authorization: context.request.headers["Authorization"],
                                apiKeyHeader: context.request.headers["X-OP-API-Key"])
    }

    /// The organization key guards `/apps`. With none configured, nobody gets in.
    package static func requireOrganization(_ context: RouteContext) throws(APIError) {
        guard let configured = context.services.configuration.organizationAPIKey else {
            throw APIError(status: 401, badOrganizationKey)
        }
        let digest = KeyMaterial.digest(configured)
        guard presentedKeys(context).contains(where: { KeyMaterial.matches($0, digest: digest) }) else {
            throw APIError(status: 401, badOrganizationKey)
        }
    }

    /// The app must exist (`404`), and one of the presented keys must be one of its unexpired REST
    /// keys (`401`). Expiry is judged by the request's `now`, the clock that set `expires_at`; an
    /// expired key gets the same answer as an unknown one.
    package static func requireRESTKey(appID: String, _ context: RouteContext) async throws -> RESTPrincipal {
        let presented = presentedKeys(context)
        let now = context.services.now()
        // The app and its keys in one round trip.
        let found = try await context.services.database.withConnection { connection -> (AppRecord, [PostgresRow])? in
            let read = try connection.pipeline([AppRecord.columns + " WHERE id = \(appID)", """
                SELECT id, tenant_id, digest FROM api_keys
                WHERE app_id = \(appID) AND (expires_at IS NULL OR expires_at > to_timestamp(\(now)))
                """])
            guard let app = try read[0].first.map(AppRecord.init(row:)) else { return nil }
            return (app, Array(read[1]))
        }
        guard let (app, keys) = found else { throw unknownApp(appID) }
        // Every key of the app is compared, so timing says nothing about which one matched.
        var match: RESTPrincipal?
        for key in keys {
            let digest: [UInt8] = try key.decode("digest")
            if presented.contains(where: { KeyMaterial.matches($0, digest: digest) }) {
                match = RESTPrincipal(app: app, keyID: try key.decode("id"), tenantID: try key.decode("tenant_id"))
            }
        }
        guard let match else { throw APIError(status: 401, badRESTKey) }
        return match
    }

    /// Native `/v1` routes: the app must exist (`404`) and `X-OP-SDK-Key` must be its SDK key (`401`).
    package static func requireSDKKey(appID: String, _ context: RouteContext) async throws -> AppRecord {
        guard let app = try await AppStore.find(appID, in: context.services.database) else { throw unknownApp(appID) }
        guard let presented = context.request.headers["X-OP-SDK-Key"], KeyMaterial.matches(presented, digest: app.sdkKeyDigest)
        else { throw APIError(status: 401, badSDKKey) }
        return app
    }
}
