import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// OneSignal's template routes, with the app's REST key and `app_id` where OneSignal passes it:
/// in the body of `POST /templates`, in the query of the others. A template belongs to its app:
/// a shared demo tenant's key reads the app's templates and sends with them, but only the app's
/// own keys create, change or delete them (as with segments).
enum TemplatesRoutes {
    /// OneSignal's page size, and its largest.
    static let listLimit = 50
    static let channels = ["push", "email", "sms"]

    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/templates", create)
        router.add(.get, "/templates", list)
        router.add(.get, "/templates/{template_id}", view)
        router.add(.patch, "/templates/{template_id}", update)
        router.add(.delete, "/templates/{template_id}", delete)
        registerCopy(on: &router)
    }

    static func notFound(_ id: String) -> APIError { .notFound("template '\(id)' not found") }

    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        let body = try context.jsonObject()
        guard case .string(let appID)? = body["app_id"], !appID.isEmpty else { throw APIError.badRequest("app_id is required") }
        let principal = try await Authentication.requireRESTKey(appID: appID, context)
        try TenantAccess.requireAppKey(principal, "create templates")
        let fields = try TemplateFields.parseCreate(body).get()
        let record = try await TemplateStore.create(appID: principal.app.id, fields: fields, now: context.services.now(),
                                                    in: context.services.database)
        return .json(record.resource, headers: ignoredFieldsHeader(fields))
    }

    /// Oldest first, summaries only (OneSignal's shape); `channel=email` or `sms` lists nothing,
    /// since every OpenPush template is a push template.
    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let query = context.request.query
        let page = try PageRequest.read(query, maxLimit: listLimit)
        if let channel = query["channel"], !channels.contains(channel) {
            throw APIError.badRequest("channel must be one of: \(channels.joined(separator: ", "))")
        }
        let (total, templates) = query["channel", default: "push"] == "push"
            ? try await TemplateStore.page(appID: principal.app.id, page: page, in: context.services.database)
            : (0, [])
        return .json([
            "total_count": .int(Int64(total)), "offset": .int(Int64(page.offset)), "limit": .int(Int64(page.limit)),
            "templates": .array(templates.map(\.summary)),
        ])
    }

    @Sendable static func view(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        let id = context.pathParameter("template_id")
        let record = try await TemplateStore.find(id: id, appID: principal.app.id, in: context.services.database)
        guard let record else { throw notFound(id) }
        return .json(record.resource)
    }

    @Sendable static func update(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        try TenantAccess.requireAppKey(principal, "change templates")
        let body = try context.jsonObject()
        if let appID = body["app_id"], appID != .string(principal.app.id) {
            throw APIError.badRequest("app_id in the body must be the app_id of the query")
        }
        let fields = try TemplateFields.parseUpdate(body).get()
        let id = context.pathParameter("template_id")
        guard let record = try await TemplateStore.update(id: id, appID: principal.app.id, fields: fields,
                                                          now: context.services.now(), in: context.services.database)
        else { throw notFound(id) }
        return .json(record.resource, headers: ignoredFieldsHeader(fields))
    }

    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await caller(context)
        try TenantAccess.requireAppKey(principal, "delete templates")
        let id = context.pathParameter("template_id")
        guard try await TemplateStore.delete(id: id, appID: principal.app.id, in: context.services.database) else {
            throw notFound(id)
        }
        return .json(["success": true])
    }

    /// `app_id` from the query, and that app's REST key (or one of its tenants').
    static func caller(_ context: RouteContext) async throws -> RESTPrincipal {
        try await Authentication.requireRESTKey(appID: try NotificationRoutes.appIDParameter(context), context)
    }

    /// Names the other-channel fields (email, SMS) that were accepted and ignored.
    static func ignoredFieldsHeader(_ fields: TemplateFields) -> [String: String] {
        fields.ignored.isEmpty ? [:] : [NotificationRoutes.ignoredFieldsHeader: fields.ignored.joined(separator: ", ")]
    }
}
