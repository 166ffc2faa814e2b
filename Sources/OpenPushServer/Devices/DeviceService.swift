import OpenPushCore
import OpenPushDelivery
import Postgres

/// The device use cases behind the routes: each one transaction, with the checks of who may
/// touch which device done inside it. A native call speaks for the device by its push token
/// (`NativeDevice`); a REST call names a subscription and must be allowed to see it.
enum DeviceService {
    /// `POST /v1/…/subscriptions/retire`: the device of this token stops receiving pushes.
    static func retire(app: AppRecord, token: String, deviceKey: String?, now: Double,
                       in database: PostgresPool) async throws {
        try await database.transaction { connection in
            let device = try NativeDevice.find(app: app, token: token, deviceKey: deviceKey, in: connection)
            try SubscriptionStore.retire(subscriptionID: device.subscriptionID, now: now, in: connection)
        }
    }

    /// The subscription, if the key may see it.
    static func find(id: String, principal: RESTPrincipal, in database: PostgresPool) async throws -> SubscriptionRecord {
        let subscription = try await database.withConnection { connection in
            try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection)
        }
        return try visible(subscription, id: id, to: principal)
    }

    /// Applies the changes to a subscription the key may see, and reads it back. A `token` that
    /// is not the device's moves it to that token (`web`: the rules a browser's endpoint obeys).
    static func update(id: String, _ changes: SubscriptionChanges, web: WebPushSubscriptionRules, principal: RESTPrincipal,
                       now: Double, in database: PostgresPool) async throws -> SubscriptionRecord {
        let updated = try await database.transaction { connection -> SubscriptionRecord? in
            let found = try visible(try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection), id: id, to: principal)
            try SubscriptionIdentity.requireSame(changes.oneSignal, as: found, tokenMayChange: true)
            if let change = try SubscriptionIdentity.tokenChange(changes.oneSignal, of: found, rules: web) {
                try SubscriptionStore.changeToken(id: id, appID: principal.app.id, to: change, now: now, in: connection)
            }
            try SubscriptionStore.update(id: id, appID: principal.app.id, changes, now: now, in: connection)
            return try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection)
        }
        return try visible(updated, id: id, to: principal)
    }

    /// Retires a subscription the key may see, as the SDK's retire route does.
    static func retire(id: String, principal: RESTPrincipal, now: Double, in database: PostgresPool) async throws {
        try await database.transaction { connection in
            let found = try SubscriptionStore.find(id: id, appID: principal.app.id, in: connection)
            _ = try visible(found, id: id, to: principal)
            try SubscriptionStore.retire(subscriptionID: id, now: now, in: connection)
        }
    }

    /// A subscription the key may see: one of its app (`404` otherwise, as for an unknown id) and,
    /// for a tenant's key on a shared demo app, one linked to that tenant (`403`).
    static func visible(_ subscription: SubscriptionRecord?, id: String, to principal: RESTPrincipal) throws(APIError)
        -> SubscriptionRecord
    {
        guard let subscription else { throw APIError.notFound("subscription '\(id)' not found") }
        if let tenantID = principal.tenantID, subscription.tenantID != tenantID {
            throw APIError(status: 403, "subscription '\(id)' belongs to another tenant of this app")
        }
        return subscription
    }
}
