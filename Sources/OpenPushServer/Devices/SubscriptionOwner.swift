import OpenPushCore
import OpenPushDelivery
import Postgres

/// The user a subscription is created for or moved to, found by alias as the users routes find
/// it. OpenPush ties a device to its user by the user's `external_id` alias, so that user must
/// have one.
struct SubscriptionOwner: Sendable {
    var user: UserRecord
    var externalID: String

    static let userNotFound = APIError.notFound("user not found")

    static func find(_ lookup: UserLookup, appID: String, in connection: PostgresConnection) throws -> SubscriptionOwner {
        guard let id = try UserStore.resolve(lookup, appID: appID, in: connection),
              let user = try UserStore.find(id: id, appID: appID, in: connection)
        else { throw userNotFound }
        guard let externalID = user.externalID else {
            throw APIError(status: 409, "user '\(user.id)' has no external_id alias, which OpenPush ties devices to "
                           + "their user by: add one with PATCH …/users/by/{alias_label}/{alias_id}/identity first")
        }
        return SubscriptionOwner(user: user, externalID: externalID)
    }

    /// A shared demo tenant's key holds the devices linked to it through the SDK's link code; it
    /// may not create or move devices by REST (a device it named could be another tenant's).
    static func requireAppKey(_ principal: RESTPrincipal) throws(APIError) {
        if principal.tenantID != nil {
            throw APIError(status: 403, "a tenant's key cannot create or move subscriptions on a shared demo app; "
                           + "use the app's REST key")
        }
    }
}
