import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Postgres

extension UserRoutes {
    static let userNotFound = APIError.notFound("user not found")

    /// `POST /apps/{app_id}/users`: `201` with a new user, `200` when the aliases named an
    /// existing user, which is merged into.
    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let creation = try UserCreation(body: try context.jsonObject())
        let database = context.services.database
        let (user, created) = try await UserStore.create(creation, appID: principal.app.id, tenantID: principal.tenantID,
                                                         now: context.services.now(), in: database)
        let view = try await database.withConnection { try userView(of: user, to: principal, in: $0) }
        return .json(view, status: created ? 201 : 200)
    }

    /// `GET …/users/by/{alias_label}/{alias_id}`.
    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        let view = try await context.services.database.withConnection { connection -> JSONValue in
            let user = try find(lookup, for: principal, in: connection)
            return try userView(of: user, to: principal, in: connection)
        }
        return .json(view)
    }

    /// `PATCH …/identity` with `{"identity": {label: value, …}}`: adds aliases.
    @Sendable static func addIdentity(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        let addition = try IdentityAddition(body: try context.jsonObject())
        let database = context.services.database
        let userID = try await database.withConnection { try find(lookup, for: principal, in: $0).id }
        guard let user = try await UserStore.addAliases(addition.identity, userID: userID, appID: principal.app.id,
                                                        now: context.services.now(), in: database)
        else { throw userNotFound }
        return .json(["identity": user.identityView])
    }

    /// `DELETE …/identity/{label_to_delete}`: removes one alias. The user's own id cannot be
    /// removed, nor `external_id`, which ties the user to its devices (delete the user instead).
    @Sendable static func deleteIdentity(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        let label = context.pathParameter("label_to_delete")
        if AliasLabel.reserved.contains(label) || label == AliasLabel.externalID {
            throw APIError.badRequest("the \(label) alias cannot be deleted")
        }
        let now = context.services.now()
        let user = try await context.services.database.transaction { connection -> UserRecord? in
            let user = try find(lookup, for: principal, in: connection)
            guard try UserStore.deleteAlias(label: label, userID: user.id, now: now, in: connection) else { return nil }
            return try UserStore.find(id: user.id, appID: principal.app.id, in: connection)
        }
        guard let user else { throw APIError.notFound("the user has no '\(label)' alias") }
        return .json(["identity": user.identityView])
    }

    /// `DELETE …/users/by/{alias_label}/{alias_id}`: the user and its aliases go; its devices
    /// stay registered, unlinked (their `external_id` is cleared).
    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        let now = context.services.now()
        try await context.services.database.transaction { connection in
            let user = try find(lookup, for: principal, in: connection)
            try UserStore.delete(userID: user.id, appID: principal.app.id, now: now, in: connection)
        }
        return .json(["success": true])
    }

    private static func authorize(_ context: RouteContext) async throws -> (RESTPrincipal, UserLookup) {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let lookup = UserLookup(label: context.pathParameter("alias_label"), value: context.pathParameter("alias_id"))
        return (principal, lookup)
    }

    /// The user a lookup names (`404`); for a shared demo tenant's key, one of its own (`403`).
    private static func find(_ lookup: UserLookup, for principal: RESTPrincipal,
                             in connection: PostgresConnection) throws -> UserRecord {
        let appID = principal.app.id
        guard let id = try UserStore.resolve(lookup, appID: appID, in: connection),
              let user = try UserStore.find(id: id, appID: appID, in: connection)
        else { throw userNotFound }
        try TenantAccess.requireOwnUser(user.id, appID: appID, tenantID: principal.tenantID, in: connection)
        return user
    }

    /// The user with its live devices; a tenant's key sees only the devices linked to it.
    private static func userView(of user: UserRecord, to principal: RESTPrincipal,
                                 in connection: PostgresConnection) throws -> JSONValue {
        var devices = try user.externalID.map { try SubscriptionStore.live(externalID: $0, appID: user.appID, in: connection) } ?? []
        if let tenantID = principal.tenantID {
            devices.removeAll { $0.tenantID != tenantID }
        }
        return user.view(subscriptions: devices)
    }
}
