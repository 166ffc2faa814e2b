import HTTPServer
import OpenPushCore
import OpenPushDelivery

extension SubscriptionRoutes {
    /// `POST /apps/{app_id}/users/by/{alias_label}/{alias_id}/subscriptions`: `201` with
    /// `{"subscription": …}` for a new device, `200` when the token was registered already (it
    /// keeps its id and moves to this user). The user must exist (`404`) and have an
    /// `external_id` (`409`).
    @Sendable static func createForUser(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let lookup = UserLookup(label: context.pathParameter("alias_label"), value: context.pathParameter("alias_id"))
        let creation = try SubscriptionCreation(body: try context.jsonObject(),
                                                web: WebPushSubscriptionRules(context.services.configuration))
        let (subscription, created) = try await DeviceService.create(creation, for: lookup, principal: principal,
                                                                     now: context.services.now(), in: context.services.database)
        return .json(["subscription": subscription.oneSignalView], status: created ? 201 : 200)
    }

    /// `PATCH /apps/{app_id}/subscriptions/{subscription_id}/owner` with `{"identity": {label: value}}`:
    /// answers the new owner's `{"identity": …}`.
    @Sendable static func transferOwner(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let transfer = try SubscriptionTransfer(body: try context.jsonObject())
        let owner = try await DeviceService.transfer(id: context.pathParameter("subscription_id"), to: transfer.owner,
                                                     principal: principal, now: context.services.now(),
                                                     in: context.services.database)
        return .json(["identity": owner.identityView])
    }

    /// `PATCH /apps/{app_id}/subscriptions_by_token/{token_type}/{token}`: the changes of the
    /// `PATCH` by id. Answers `{}` as OneSignal does: its clients parse an object, never nothing.
    @Sendable static func updateByToken(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let typeName = context.pathParameter("token_type")
        if let problem = OneSignalSubscriptionType.problem(typeName, key: "token_type") {
            throw APIError.badRequest(problem)
        }
        guard let type = OneSignalSubscriptionType(rawValue: typeName) else { throw InvariantViolation("checked type") }
        // An Android token is opaque and kept as sent; an Apple one is hex, stored lower-cased.
        let rawToken = context.pathParameter("token")
        if let problem = DeviceToken.problem(rawToken, service: type.service) { throw APIError.badRequest("token \(problem)") }
        let changes = try SubscriptionChanges(body: try context.jsonObject())
        try await DeviceService.update(type: type, token: DeviceToken.normalized(rawToken, service: type.service), changes,
                                       principal: principal,
                                       now: context.services.now(), in: context.services.database)
        return .json(.object([:]))
    }
}
