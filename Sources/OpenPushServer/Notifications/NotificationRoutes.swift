import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `POST /notifications`, `GET /notifications` and `DELETE /notifications/{id}`: OneSignal's
/// notification routes. A create stores the message and its audience definition and returns;
/// the delivery workers expand the audience and send (no fan-out cap).
enum NotificationRoutes {
    static let idempotencyConflict = IdempotentRequest.conflict
    static let idempotencyKeyLength = "Idempotency-Key must be 1 to 255 characters"
    static let twoIdempotencyKeys = NotificationSendService.twoIdempotencyKeys
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
        let created = try await NotificationSendService.create(
            body: body, header: Result { () throws(APIError) in try idempotencyKey(context) }, principal: principal,
            now: context.services.now(), webPushSubject: context.services.configuration.webPushSubject,
            database: context.services.database)
        // Derived from the body, which a replay must repeat exactly, so a replay names the same fields.
        var headers: [String: String] = created.replayed ? ["Idempotent-Replayed": "true"] : [:]
        headers[ignoredFieldsHeader] = OneSignalNotificationFields.ignoredHeader(for: body)
        return .json(created.body, headers: headers)
    }

    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: try appIDParameter(context), context)
        let page = try PageRequest.read(context.request.query, maxLimit: listLimit)
        let listed = try await NotificationService.list(principal: principal, page: page, database: context.services.database)
        return .json([
            "total_count": .int(Int64(listed.total)), "offset": .int(Int64(page.offset)), "limit": .int(Int64(page.limit)),
            "notifications": .array(listed.views),
        ])
    }

    @Sendable static func cancel(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: try appIDParameter(context), context)
        let messageID = context.pathParameter("notification_id")
        let found = try await NotificationService.cancel(messageID: messageID, principal: principal, now: context.services.now(),
                                                         database: context.services.database)
        guard found else { throw APIError.notFound("notification '\(messageID)' not found") }
        return .json(["success": true])
    }

    static func appIDParameter(_ context: RouteContext) throws(APIError) -> String {
        guard let appID = context.request.query["app_id"], !appID.isEmpty else { throw APIError.badRequest("app_id is required") }
        return appID
    }

    static func idempotencyKey(_ context: RouteContext) throws(APIError) -> String? {
        guard let key = context.request.headers["Idempotency-Key"] else { return nil }
        guard (1...255).contains(key.count) else { throw APIError.badRequest(idempotencyKeyLength) }
        return key
    }
}
