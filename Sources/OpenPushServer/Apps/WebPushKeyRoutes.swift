import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `GET /v1/apps/{app_id}/web-push`: what a web page needs to subscribe — the app's VAPID public
/// key, the `applicationServerKey` of `pushManager.subscribe` — with the SDK key, as the other
/// `/v1` routes. An app from before Web Push gets its key pair here if it has none yet.
enum WebPushKeyRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/v1/apps/{app_id}/web-push", show)
    }

    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        let app = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
        let publicKey = try await AppStore.vapidPublicKey(of: app, services: context.services)
        return .json(["vapid_public_key": .string(publicKey)])
    }
}

extension AppStore {
    /// The app's VAPID public key, made (and stored) first for an app that has none.
    static func vapidPublicKey(of app: AppRecord, services: Services) async throws -> String {
        if let key = app.webPushVAPIDPublicKey { return key }
        guard let key = try await VAPIDKeyStore.publicKey(forApp: app.id, keyring: services.configuration.secretKeyring,
                                                            in: services.database) else {
            throw Authentication.unknownApp(app.id)
        }
        return key
    }

    /// The app with its VAPID public key filled in (made first when it has none).
    static func withVAPIDKey(_ app: AppRecord, services: Services) async throws -> AppRecord {
        var app = app
        app.webPushVAPIDPublicKey = try await vapidPublicKey(of: app, services: services)
        return app
    }
}
