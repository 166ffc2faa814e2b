import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// An app's webhook endpoints (REST key): create, list, view, change, delete, rotate the
/// secret, send a test `ping`. The secret is shown by create and rotate_secret only. A shared
/// demo tenant's key is refused (`403`): endpoints get every tenant's events.
enum WebhookRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/webhooks", create)
        router.add(.get, "/apps/{app_id}/webhooks", list)
        router.add(.get, "/apps/{app_id}/webhooks/{webhook_id}", view)
        router.add(.patch, "/apps/{app_id}/webhooks/{webhook_id}", update)
        router.add(.delete, "/apps/{app_id}/webhooks/{webhook_id}", delete)
        router.add(.post, "/apps/{app_id}/webhooks/{webhook_id}/rotate_secret", rotateSecret)
        router.add(.post, "/apps/{app_id}/webhooks/{webhook_id}/test", test)
    }

    static func notFound(_ id: String) -> APIError { .notFound("webhook '\(id)' not found") }

    /// The app's own REST key (not a tenant's).
    static func caller(_ context: RouteContext) async throws -> RESTPrincipal {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "manage webhooks")
        return principal
    }

    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let fields = try WebhookFields.parseCreate(try context.jsonObject(),
                                                   allowPrivate: context.services.configuration.webhooksAllowPrivate).get()
        guard let url = fields.url, let events = fields.events else {
            throw InvariantViolation("WebhookFields passed a create without url or events")
        }
        let (record, secret) = try await WebhookStore.create(appID: principal.app.id, url: url, events: events,
                                                             description: fields.description.newValue,
                                                             now: context.services.now(),
                                                             sealing: context.services.configuration.secretKeyring,
                                                             audit: context.auditStamp(.apiKey(id: principal.keyID)),
                                                             in: context.services.database)
        return .json(record.json(secret: secret), status: 201)
    }

    /// Oldest first, never their secrets.
    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let records = try await WebhookStore.list(appID: principal.app.id, in: context.services.database)
        return .json(["webhooks": .array(records.map(\.json))])
    }

    @Sendable static func view(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let id = context.pathParameter("webhook_id")
        let record = try await WebhookStore.find(id: id, appID: principal.app.id, in: context.services.database)
        guard let record else { throw notFound(id) }
        return .json(record.json)
    }

    @Sendable static func update(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let fields = try WebhookFields.parseUpdate(try context.jsonObject(),
                                                   allowPrivate: context.services.configuration.webhooksAllowPrivate).get()
        let id = context.pathParameter("webhook_id")
        guard let record = try await WebhookStore.update(id: id, appID: principal.app.id, fields: fields,
                                                         now: context.services.now(),
                                                         audit: context.auditStamp(.apiKey(id: principal.keyID)),
                                                         in: context.services.database)
        else { throw notFound(id) }
        return .json(record.json)
    }

    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let id = context.pathParameter("webhook_id")
        guard try await WebhookStore.delete(id: id, appID: principal.app.id, now: context.services.now(),
                                            audit: context.auditStamp(.apiKey(id: principal.keyID)),
                                            in: context.services.database) else {
            throw notFound(id)
        }
        return HTTPResponse(status: 204)
    }

    @Sendable static func rotateSecret(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let id = context.pathParameter("webhook_id")
        guard let (record, secret) = try await WebhookStore.rotateSecret(id: id, appID: principal.app.id,
                                                                         now: context.services.now(),
                                                                         sealing: context.services.configuration.secretKeyring,
                                                                         in: context.services.database)
        else { throw notFound(id) }
        return .json(record.json(secret: secret))
    }

    /// Queues a `ping` (data `{}`) for this endpoint only: `202 {"event_id": "evt_…"}`. A
    /// disabled endpoint is refused (`409`): it would never send it. At most
    /// `WebhookLimits.testsPerWindow` a minute per endpoint, then `429` with `Retry-After`.
    @Sendable static func test(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let id = context.pathParameter("webhook_id")
        let database = context.services.database
        let enabled = try await WebhookStore.find(id: id, appID: principal.app.id, in: database)?.enabled
        guard let enabled else { throw notFound(id) }
        guard enabled else { throw APIError(status: 409, "webhook '\(id)' is disabled: enable it (PATCH enabled: true) first") }
        switch try await WebhookStore.ping(id: id, appID: principal.app.id, now: context.services.now(), in: database) {
        case nil:
            throw notFound(id)
        case .limited(let retryAfter)?:
            throw APIError(status: 429, WebhookLimits.tooManyTests, headers: ["Retry-After": String(retryAfter)])
        case .queued(let eventID)?:
            return .json(["event_id": .string(eventID)], status: 202)
        }
    }
}
