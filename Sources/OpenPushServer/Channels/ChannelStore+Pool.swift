import OpenPushDelivery
import Postgres

/// `ChannelStore`'s reads and writes that stand alone, each on a connection of its own (the
/// writes in a transaction of their own).
extension ChannelStore {
    static func nameExists(appID: String, name: String, in database: PostgresPool) async throws -> Bool {
        try await database.withConnection { try nameExists(appID: appID, name: name, in: $0) }
    }

    static func insert(_ channel: Channel, in database: PostgresPool) async throws -> Channel? {
        try await database.transaction { try insert(channel, in: $0) }
    }

    static func find(appID: String, id: String, in database: PostgresPool) async throws -> Channel? {
        try await database.withConnection { try find(appID: appID, id: id, in: $0) }
    }

    static func find(appID: String, name: String, in database: PostgresPool) async throws -> Channel? {
        try await database.withConnection { try find(appID: appID, name: name, in: $0) }
    }

    static func page(appID: String, limit: Int, offset: Int,
                     in database: PostgresPool) async throws -> (total: Int, channels: [Channel]) {
        try await database.withConnection { try page(appID: appID, limit: limit, offset: offset, in: $0) }
    }

    static func delete(appID: String, id: String, in database: PostgresPool) async throws {
        try await database.transaction { try delete(appID: appID, id: id, in: $0) }
    }
}
