import OpenPushCore
import OpenPushDelivery
import Postgres

/// The notification routes' reads and their cancel, each in one connection or transaction.
/// Every lookup is scoped to the caller: a shared demo tenant's key finds only its own messages.
enum NotificationService {
    struct Listed: Sendable {
        var total: Int
        var views: [JSONValue]
    }

    /// A page of the app's messages, newest first, as `GET /notifications/{id}` shows each.
    static func list(principal: RESTPrincipal, page: PageRequest, database: PostgresPool) async throws -> Listed {
        let appID = principal.app.id
        return try await database.withConnection { connection in
            let (total, ids) = try NotificationStore.list(appID: appID, tenantID: principal.tenantID, page: page, in: connection)
            return Listed(total: total, views: try ids.compactMap { try MessageView.find(messageID: $0, appID: appID, in: connection) })
        }
    }

    /// Cancels the message (`MessageLifecycle`); false when the caller has no such message.
    static func cancel(messageID: String, principal: RESTPrincipal, now: Double, database: PostgresPool) async throws -> Bool {
        try await database.transaction {
            try NotificationStore.cancel(messageID: messageID, appID: principal.app.id, tenantID: principal.tenantID, now: now,
                                         in: $0)
        }
    }

    static func view(messageID: String, principal: RESTPrincipal, database: PostgresPool) async throws -> JSONValue? {
        try await database.withConnection { connection in
            try MessageView.find(messageID: messageID, appID: principal.app.id, tenantID: principal.tenantID, in: connection)
        }
    }

    /// One page of the message's per-device records, read from one snapshot.
    static func deliveries(messageID: String, principal: RESTPrincipal, request: DeliveryListRequest,
                           database: PostgresPool) async throws -> NotificationDeliveriesStore.Page? {
        try await database.transaction { connection in
            try NotificationDeliveriesStore.page(messageID: messageID, appID: principal.app.id, tenantID: principal.tenantID,
                                                 request: request, in: connection)
        }
    }
}
