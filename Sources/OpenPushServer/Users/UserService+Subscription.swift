import OpenPushCore
import OpenPushDelivery
import Postgres

extension UserService {
    /// The user of a subscription the key may see (`404` for an unknown one, `403` for another
    /// tenant's): the user whose `external_id` it carries. A device without one has no user (`404`).
    static func user(ofSubscription id: String, principal: RESTPrincipal, in database: PostgresPool) async throws -> UserRecord {
        try await database.withConnection { connection in
            let subscription = try visibleSubscription(id, principal: principal, in: connection)
            guard let user = try find(subscription: subscription, principal: principal, in: connection) else {
                throw noUser(id)
            }
            return user
        }
    }

    /// `create_alias_by_subscription`: adds aliases to the subscription's user. A device without
    /// a user gets one, as OneSignal gives every subscription a user: the aliases must then hold
    /// `external_id`, which is how OpenPush ties a device to its user, and the device takes it.
    static func addAliases(_ identity: [String: String], toSubscription id: String, principal: RESTPrincipal, now: Double,
                           in database: PostgresPool) async throws -> UserRecord {
        let appID = principal.app.id
        return try await UserStore.conflictsAs409 {
            try await database.transaction { connection in
                let subscription = try visibleSubscription(id, principal: principal, in: connection)
                let userID: String
                if let user = try find(subscription: subscription, principal: principal, in: connection) {
                    userID = user.id
                } else if let externalID = subscription.externalID {
                    // Linked by `external_id` to a user that is gone: the link makes it again.
                    try UserStore.ensureUser(externalID: externalID, appID: appID, now: now, in: connection)
                    guard let made = try UserStore.resolve(.alias(label: AliasLabel.externalID, value: externalID),
                                                           appID: appID, in: connection)
                    else { throw InvariantViolation("a user vanished in its own transaction") }
                    userID = made
                } else {
                    userID = try UserStore.createUser(for: id, identity: identity, appID: appID, now: now, in: connection)
                }
                try UserStore.addAliases(identity, userID: userID, appID: appID, in: connection)
                try connection.query("UPDATE users SET updated_at = to_timestamp(\(now)) WHERE id = \(userID)")
                guard let user = try UserStore.find(id: userID, appID: appID, in: connection) else { throw userNotFound }
                return user
            }
        }
    }

    private static func noUser(_ id: String) -> APIError {
        APIError.notFound("subscription '\(id)' has no user: it carries no external_id")
    }

    private static func visibleSubscription(_ id: String, principal: RESTPrincipal,
                                            in connection: PostgresConnection) throws -> SubscriptionRecord {
        try DeviceService.visible(try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection), id: id,
                                  to: principal)
    }

    /// The subscription's user, checked as every user route checks it; nil when it has none.
    private static func find(subscription: SubscriptionRecord, principal: RESTPrincipal,
                             in connection: PostgresConnection) throws -> UserRecord? {
        guard let userID = try UserStore.resolve(.subscriptionID(subscription.id), appID: principal.app.id, in: connection)
        else { return nil }
        return try find(.userID(userID), for: principal, in: connection)
    }
}
