import OpenPushCore
import OpenPushDelivery
import Postgres

/// The user-model subscription calls of OneSignal's API: create a device for a user, move one to
/// another user, change one named by its token. Each is one transaction.
extension DeviceService {
    /// `create_subscription`: the device as it is after, and whether its row is new.
    static func create(_ creation: SubscriptionCreation, for lookup: UserLookup, principal: RESTPrincipal, now: Double,
                       in database: PostgresPool) async throws -> (subscription: SubscriptionRecord, created: Bool) {
        try SubscriptionOwner.requireAppKey(principal)
        let appID = principal.app.id
        return try await database.transaction { connection in
            let owner = try SubscriptionOwner.find(lookup, appID: appID, in: connection)
            let registered = try SubscriptionStore.create(creation, externalID: owner.externalID, appID: appID, now: now,
                                                          in: connection)
            guard let subscription = try SubscriptionStore.find(id: registered.id, appID: appID, in: connection) else {
                throw InvariantViolation("a subscription vanished in its own transaction")
            }
            return (subscription, registered.created)
        }
    }

    /// `transfer_subscription`: the live device moves to the user a lookup names; that user after.
    static func transfer(id: String, to lookup: UserLookup, principal: RESTPrincipal, now: Double,
                         in database: PostgresPool) async throws -> UserRecord {
        try SubscriptionOwner.requireAppKey(principal)
        let appID = principal.app.id
        return try await database.transaction { connection in
            let found = try SubscriptionStore.find(id: id, appID: appID, in: connection)
            guard let found, !found.isRetired else { throw APIError.notFound("subscription '\(id)' not found") }
            let owner = try SubscriptionOwner.find(lookup, appID: appID, in: connection)
            try SubscriptionStore.setOwner(id: found.id, appID: appID, externalID: owner.externalID, now: now, in: connection)
            return owner.user
        }
    }

    /// `update_subscription_by_token`: the changes of `update`, to the live device of this type
    /// holding this token (`404` when none).
    static func update(type: OneSignalSubscriptionType, token: String, _ changes: SubscriptionChanges,
                       principal: RESTPrincipal, now: Double, in database: PostgresPool) async throws {
        let appID = principal.app.id
        try await database.transaction { connection in
            let found = try SubscriptionStore.find(token: token, appID: appID, in: connection)
            guard let found, !found.isRetired, type.matches(platform: found.platform) else {
                throw APIError.notFound("no \(type.rawValue) subscription with this token")
            }
            try SubscriptionIdentity.requireSame(changes.oneSignal, as: try visible(found, id: found.id, to: principal),
                                                 tokenMayChange: false)
            try SubscriptionStore.update(id: found.id, appID: appID, changes, now: now, in: connection)
        }
    }
}
