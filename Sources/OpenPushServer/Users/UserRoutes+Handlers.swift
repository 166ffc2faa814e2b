import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Postgres

extension UserRoutes {
    /// `POST /apps/{app_id}/users`: `201` with a new user, `200` when the aliases named an
    /// existing user, which is merged into.
    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let creation = try UserCreation(body: try context.jsonObject())
        let (seen, created) = try await UserService.create(creation, principal: principal, now: context.services.now(),
                                                           in: context.services.database)
        return .json(seen.view, status: created ? 201 : 200)
    }

    /// `GET …/users/by/{alias_label}/{alias_id}`.
    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        return .json(try await UserService.find(lookup, principal: principal, in: context.services.database).view)
    }

    /// `PATCH …/users/by/{alias_label}/{alias_id}`, OneSignal's `update_user`: `properties` to
    /// set and `deltas` to add. Answers `{"properties": …}`, the user's properties after.
    @Sendable static func update(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        let update = try UserUpdate(body: try context.jsonObject())
        let seen = try await UserService.update(lookup, update, principal: principal, now: context.services.now(),
                                                in: context.services.database)
        return .json(["properties": seen.user.propertiesView(devices: seen.devices)])
    }

    /// `GET …/identity`: the user's aliases.
    @Sendable static func showIdentity(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        let user = try await UserService.find(lookup, principal: principal, in: context.services.database).user
        return .json(["identity": user.identityView])
    }

    /// `GET /apps/{app_id}/subscriptions/{subscription_id}/user/identity`: the aliases of the
    /// device's user.
    @Sendable static func showSubscriptionIdentity(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let user = try await UserService.user(ofSubscription: context.pathParameter("subscription_id"), principal: principal,
                                              in: context.services.database)
        return .json(["identity": user.identityView])
    }

    /// `PATCH` on the same path with `{"identity": {label: value, …}}`: adds aliases to the
    /// device's user, making one when the device has none (see `UserService.addAliases(_:toSubscription:…)`).
    @Sendable static func addSubscriptionIdentity(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let addition = try IdentityAddition(body: try context.jsonObject())
        let user = try await UserService.addAliases(addition.identity, toSubscription: context.pathParameter("subscription_id"),
                                                    principal: principal, now: context.services.now(),
                                                    in: context.services.database)
        return .json(["identity": user.identityView])
    }

    /// `PATCH …/identity` with `{"identity": {label: value, …}}`: adds aliases.
    @Sendable static func addIdentity(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        let addition = try IdentityAddition(body: try context.jsonObject())
        let user = try await UserService.addAliases(addition.identity, to: lookup, principal: principal,
                                                    now: context.services.now(), in: context.services.database)
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
        guard let user = try await UserService.deleteAlias(label: label, of: lookup, principal: principal,
                                                           now: context.services.now(), in: context.services.database)
        else { throw APIError.notFound("the user has no '\(label)' alias") }
        return .json(["identity": user.identityView])
    }

    /// `DELETE …/users/by/{alias_label}/{alias_id}`: the user and its aliases go; its devices
    /// stay registered, unlinked (their `external_id` is cleared).
    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let (principal, lookup) = try await authorize(context)
        try await UserService.delete(lookup, principal: principal, now: context.services.now(), in: context.services.database)
        return .json(["success": true])
    }

    private static func authorize(_ context: RouteContext) async throws -> (RESTPrincipal, UserLookup) {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let lookup = UserLookup(label: context.pathParameter("alias_label"), value: context.pathParameter("alias_id"))
        return (principal, lookup)
    }
}
