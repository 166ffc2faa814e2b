import Crypto
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Postgres

/// `POST /notifications`, `GET /notifications` and `DELETE /notifications/{id}`: OneSignal's
/// notification routes. A create stores the message and its audience definition and returns;
/// the delivery workers expand the audience and send (no fan-out cap).
enum NotificationRoutes {
    static let noRecipients = "All included players are not subscribed"
    static let idempotencyConflict = "Idempotency-Key was already used with a different request body"
    static let idempotencyKeyLength = "Idempotency-Key must be 1 to 255 characters"
    static let twoIdempotencyKeys = "the Idempotency-Key header and the body's idempotency_key must be the same key when both are given"
    static let listLimit = 50
    /// Names the other-channel fields of a body that were accepted and ignored.
    static let ignoredFieldsHeader = "OpenPush-Ignored-Fields"

    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/notifications", create)
        router.add(.get, "/notifications", list)
        router.add(.delete, "/notifications/{notification_id}", cancel)
    }

    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        let body = try context.jsonObject()
        guard case .string(let requestedAppID)? = body["app_id"], !requestedAppID.isEmpty else {
            throw APIError.badRequest("app_id is required")
        }
        let principal = try await Authentication.requireRESTKey(appID: requestedAppID, context)
        let appID = principal.app.id
        // The template's fields join the body before it is validated; the stored request shows them.
        let request = try await TemplateStore.applied(to: body, appID: appID, in: context.services.database)
        let send = try NotificationSendParser.parse(request).get()
        let key = try idempotency(header: idempotencyKey(context), body: send.idempotencyKey)
        // The body as sent: a repeat replays the first answer even if its template changed since.
        let digest = SHA256.hash(JSONValue.object(body).serializedBytes)
        let caller = IdempotencyStore.caller(tenantID: principal.tenantID)
        let now = context.services.now()
        let outcome = try await context.services.database.transaction { connection -> (JSONValue, replayed: Bool) in
            if let key {
                // Concurrent repeats of one key queue here; the first to commit wins.
                let lock = appID + "/" + key.scope + "/" + caller + "/" + key.value
                try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lock), 0))")
                if let first = try IdempotencyStore.find(appID: appID, scope: key.scope, caller: caller, key: key.value,
                                                         notBefore: now - key.retention, in: connection) {
                    guard first.requestDigest == digest else { throw APIError(status: 409, idempotencyConflict) }
                    return (first.body, true)
                }
            }
            var messageID: String?
            let response: JSONValue
            if try send.appleExcluded || isAudienceEmpty(send, appID: appID, tenantID: principal.tenantID, now: now, in: connection) {
                response = ["id": "", "errors": [.string(noRecipients)]]
            } else {
                let id = try NotificationStore.insert(appID: appID, tenantID: principal.tenantID, send: send, request: request,
                                                      now: now, in: connection)
                try MessageStore.notifyWorkers(appID: appID, in: connection)
                messageID = id
                response = ["id": .string(id)]
            }
            if let key {
                try IdempotencyStore.save(appID: appID, scope: key.scope, caller: caller, key: key.value,
                                          response: IdempotentResponse(status: 200, body: response, requestDigest: digest,
                                                                       messageID: messageID),
                                          now: now, in: connection)
            }
            return (response, false)
        }
        // Derived from the body, which a replay must repeat exactly, so a replay names the same fields.
        var headers: [String: String] = outcome.replayed ? ["Idempotent-Replayed": "true"] : [:]
        headers[ignoredFieldsHeader] = OneSignalNotificationFields.ignoredHeader(for: body)
        return .json(outcome.0, headers: headers)
    }

    static func isAudienceEmpty(_ send: NotificationSend, appID: String, tenantID: String?, now: Double,
                                in connection: PostgresConnection) throws -> Bool {
        let targeted = try AudienceResolver.targeted(send.targeting, appID: appID, tenantID: tenantID, now: now, in: connection)
        return try NotificationAudience.isEmpty(targeted: targeted, appID: appID, kind: send.kind, in: connection)
    }

    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: try appIDParameter(context), context)
        let page = try PageRequest.read(context.request.query, maxLimit: listLimit)
        let appID = principal.app.id
        let views = try await context.services.database.withConnection { connection -> (Int, [JSONValue]) in
            let (total, ids) = try NotificationStore.list(appID: appID, tenantID: principal.tenantID, page: page, in: connection)
            return (total, try ids.compactMap { try MessageView.find(messageID: $0, appID: appID, in: connection) })
        }
        return .json([
            "total_count": .int(Int64(views.0)), "offset": .int(Int64(page.offset)), "limit": .int(Int64(page.limit)),
            "notifications": .array(views.1),
        ])
    }

    @Sendable static func cancel(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: try appIDParameter(context), context)
        let messageID = context.pathParameter("notification_id")
        let now = context.services.now()
        let found = try await context.services.database.transaction {
            try NotificationStore.cancel(messageID: messageID, appID: principal.app.id, tenantID: principal.tenantID,
                                         now: now, in: $0)
        }
        guard found else { throw APIError.notFound("notification '\(messageID)' not found") }
        return .json(["success": true])
    }

    static func appIDParameter(_ context: RouteContext) throws(APIError) -> String {
        guard let appID = context.request.query["app_id"], !appID.isEmpty else { throw APIError.badRequest("app_id is required") }
        return appID
    }

    /// The key a create is idempotent under: the body's `idempotency_key` (or `external_id`),
    /// kept 30 days as OneSignal does, or the `Idempotency-Key` header, kept 24 hours. Both may
    /// be given only when they are the same key (compared as UUIDs).
    static func idempotency(header: String?, body: String?) throws(APIError) -> IdempotencyKey? {
        if let body {
            if let header, UUIDText.canonical(header) != body { throw APIError.badRequest(twoIdempotencyKeys) }
            return IdempotencyKey(value: body, scope: NotificationStore.bodyIdempotencyScope,
                                  retention: NotificationStore.bodyIdempotencyRetention)
        }
        return header.map {
            IdempotencyKey(value: $0, scope: NotificationStore.idempotencyScope, retention: NotificationStore.idempotencyRetention)
        }
    }

    struct IdempotencyKey {
        var value: String
        var scope: String
        var retention: Double
    }

    static func idempotencyKey(_ context: RouteContext) throws(APIError) -> String? {
        guard let key = context.request.headers["Idempotency-Key"] else { return nil }
        guard (1...255).contains(key.count) else { throw APIError.badRequest(idempotencyKeyLength) }
        return key
    }
}
