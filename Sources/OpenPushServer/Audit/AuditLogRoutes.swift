import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// OneSignal's `list_audit_logs` (organization key): the deployment's administrative changes,
/// newest first, paged by cursor, filtered as OneSignal's client asks (`AuditLogQuery`).
enum AuditLogRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/organizations/{organization_id}/audit_logs", list)
    }

    /// `{"audit_logs": […], "has_more": …, "next_cursor": …}`; `next_cursor` only while more
    /// follow (OneSignal's client refuses a `null` there). An id that is not this deployment's
    /// organization is `404`.
    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let query = try AuditLogQuery.read(context.request.queryValues)
        let database = context.services.database
        let organizationID = try await AuditLogStore.organizationID(in: database)
        let requested = context.pathParameter("organization_id")
        guard requested == organizationID else { throw APIError.notFound("unknown organization '\(requested)'") }
        let (entries, hasMore) = try await AuditLogStore.page(query, in: database)
        var body: JSONObject = [
            "audit_logs": .array(entries.map { $0.json(organizationID: organizationID) }),
            "has_more": .bool(hasMore),
        ]
        if hasMore, let last = entries.last {
            let cursor = AuditCursor(occurredMicros: last.occurredMicros, position: last.position, startMicros: query.startMicros)
            body["next_cursor"] = .string(cursor.text)
        }
        return .json(.object(body))
    }
}
