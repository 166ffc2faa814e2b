import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// Tenants of a shared demo app: one sample app whose SDK key every tenant holds. The operator
/// creates, lists and deletes tenants with the organization key; each tenant gets its own REST
/// key and a link code its devices link with (`TenantsRoutes+Link`).
enum TenantsRoutes {
    static let maximumNameLength = 128

    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/tenants", create)
        router.add(.get, "/apps/{app_id}/tenants", list)
        router.add(.delete, "/apps/{app_id}/tenants/{tenant_id}", delete)
        router.add(.post, "/v1/apps/{app_id}/devices/link", linkDevice)
    }

    /// `201` with the tenant, its REST key (shown this once) and its link code. The body may be
    /// empty: `name` is optional.
    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        var reader = FieldReader(context.request.body.isEmpty ? [:] : try context.jsonObject())
        let name = reader.string("name", maxLength: maximumNameLength)
        reader.rejectUnknownFields()
        try reader.finish()
        let services = context.services
        let created = try await TenantStore.create(appID: context.pathParameter("app_id"), name: name,
                                                   now: services.now(), audit: context.auditStamp(.organizationKey),
                                                   in: services.database)
        var body = created.tenant.json
        body["rest_api_key"] = .string(created.restKey)
        return .json(.object(body), status: 201, headers: AppsRoutes.secretHeaders)
    }

    /// `{"tenants": […]}`, oldest first, with link codes and linked-device counts, never keys.
    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let tenants = try await TenantStore.list(appID: context.pathParameter("app_id"), in: context.services.database)
        return .json(["tenants": .array(tenants.map { .object($0.json) })])
    }

    /// Deletes the tenant and its REST key; its devices stay registered, unlinked.
    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let services = context.services
        let unlinked = try await TenantStore.delete(context.pathParameter("tenant_id"), appID: context.pathParameter("app_id"),
                                                    now: services.now(), audit: context.auditStamp(.organizationKey),
                                                    in: services.database)
        return .json(["success": true, "unlinked_devices": .int(Int64(unlinked))])
    }
}
