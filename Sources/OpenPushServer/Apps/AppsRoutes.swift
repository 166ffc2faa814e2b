import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `/apps`: an operator creates, lists, reads and updates apps, and manages their keys, with
/// the organization key. Field names are OneSignal's where it has them; every app shows the
/// deployment's `organization_id`. Changes are audited, their actor the organization key.
enum AppsRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps", create)
        router.add(.get, "/apps", list)
        router.add(.get, "/apps/{app_id}", show)
        router.add(.put, "/apps/{app_id}", update)
        registerKeys(on: &router)
    }

    /// Responses carrying a key must never sit in a cache.
    static let secretHeaders = ["Cache-Control": "no-store"]

    /// `200` (as OneSignal answers) with the app and its two keys, shown this once.
    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        var fields = try AppFields.read(try context.jsonObject(), for: .create)
        let services = context.services
        let now = services.now()
        try fields.settleCertificate(currentBundleID: nil, currentTopics: nil, now: now)
        let created = try await AppStore.create(AppSettings(fields), now: now,
                                                sealing: services.configuration.secretKeyring,
                                                audit: context.auditStamp(.organizationKey), in: services.database)
        var body = created.app.json(organizationID: try await AuditLogStore.organizationID(in: services.database), now: now)
        body["basic_auth_key"] = .string(created.restKey)
        body["sdk_key"] = .string(created.sdkKey)
        return .json(.object(body), headers: secretHeaders.merging(ignoredFieldsHeader(fields)) { $1 })
    }

    /// Newest first, as a bare array like OneSignal's; `X-Total-Count` says how many there are.
    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let page = try PageRequest.read(context.request.query)
        let database = context.services.database
        var result = try await AppStore.list(limit: page.limit, offset: page.offset, in: database)
        for index in result.apps.indices where result.apps[index].webPushVAPIDPublicKey == nil {
            result.apps[index] = try await AppStore.withVAPIDKey(result.apps[index], services: context.services)
        }
        let organizationID = try await AuditLogStore.organizationID(in: database)
        let now = context.services.now()
        return .json(.array(result.apps.map { .object($0.json(organizationID: organizationID, now: now)) }),
                     headers: ["X-Total-Count": String(result.total)])
    }

    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let id = context.pathParameter("app_id")
        let database = context.services.database
        guard let found = try await AppStore.find(id, in: database) else {
            throw Authentication.unknownApp(id)
        }
        let app = try await AppStore.withVAPIDKey(found, services: context.services)
        return .json(.object(app.json(organizationID: try await AuditLogStore.organizationID(in: database),
                                      now: context.services.now())))
    }

    /// Changes only the fields given; `null` clears an optional one.
    @Sendable static func update(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let id = context.pathParameter("app_id")
        let fields = try AppFields.read(try context.jsonObject(), for: .update)
        let services = context.services
        guard let updated = try await AppStore.update(id, with: fields, now: services.now(),
                                                      sealing: services.configuration.secretKeyring,
                                                      audit: context.auditStamp(.organizationKey), in: services.database) else {
            throw Authentication.unknownApp(id)
        }
        let app = try await AppStore.withVAPIDKey(updated, services: services)
        return .json(.object(app.json(organizationID: try await AuditLogStore.organizationID(in: services.database),
                                      now: services.now())),
                     headers: ignoredFieldsHeader(fields))
    }

    /// Names OneSignal's fields that were accepted and ignored (other channels, read-only ones).
    static func ignoredFieldsHeader(_ fields: AppFields) -> [String: String] {
        fields.ignored.isEmpty ? [:] : [NotificationRoutes.ignoredFieldsHeader: fields.ignored.joined(separator: ", ")]
    }
}
