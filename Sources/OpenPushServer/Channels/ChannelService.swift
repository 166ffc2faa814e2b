import APNs
import OpenPushCore
import OpenPushDelivery
import Postgres

/// Creating and deleting a broadcast channel: at APNs, through its channel management hosts,
/// and here. APNs is asked first, so a channel stored here always exists there; a name taken
/// while APNs answered gives the new channel back to APNs.
enum ChannelService {
    static func create(_ fields: ChannelFields, appID: String, services: Services) async throws -> ChannelStore.Channel {
        let database = services.database
        if try await ChannelStore.nameExists(appID: appID, name: fields.name, in: database) {
            throw APIError(status: 409, ChannelMessages.nameTaken(fields.name))
        }
        let app = try await ChannelAPNs.credential(appID: appID, keyring: services.configuration.secretKeyring, in: database)
        let client = try services.apns.client(services.configuration)
        let environment = APNSEnvironment(fields.environment)
        let response = try await call {
            try await client.createChannel(bundleID: app.bundleID, storagePolicy: fields.storagePolicy,
                                           requestID: ChannelAPNs.requestID(), credential: app.credential,
                                           environment: environment)
        }
        guard response.status == 201, let channelID = response.channelID, !channelID.isEmpty else {
            throw APIError(status: 502, ChannelMessages.apnsRefused(response.status, response.reason?.rawValue))
        }
        let now = services.now()
        let channel = ChannelStore.Channel(
            id: Identifier.make(prefix: "chn", now: now, random: KeyMaterial.identifierEntropy()), appID: appID,
            name: fields.name, channelID: channelID, storagePolicy: fields.storagePolicy,
            environment: fields.environment, createdAt: now)
        guard let stored = try await ChannelStore.insert(channel, in: database) else {
            // Another request took the name meanwhile: this channel is not needed at APNs.
            _ = try? await client.deleteChannel(bundleID: app.bundleID, channelID: channelID, requestID: ChannelAPNs.requestID(),
                                                credential: app.credential, environment: environment)
            throw APIError(status: 409, ChannelMessages.nameTaken(fields.name))
        }
        return stored
    }

    /// Deletes the channel at APNs, then here. A channel APNs no longer knows is deleted here too.
    static func delete(id: String, appID: String, services: Services) async throws {
        let database = services.database
        guard let channel = try await ChannelStore.find(appID: appID, id: id, in: database) else {
            throw APIError.notFound(ChannelMessages.unknownChannel(id))
        }
        let app = try await ChannelAPNs.credential(appID: appID, keyring: services.configuration.secretKeyring, in: database)
        let client = try services.apns.client(services.configuration)
        let response = try await call {
            try await client.deleteChannel(bundleID: app.bundleID, channelID: channel.channelID,
                                           requestID: ChannelAPNs.requestID(), credential: app.credential,
                                           environment: APNSEnvironment(channel.environment))
        }
        guard response.status == 204 || response.status == 200 || response.reason == .channelNotRegistered else {
            throw APIError(status: 502, ChannelMessages.apnsRefused(response.status, response.reason?.rawValue))
        }
        try await ChannelStore.delete(appID: appID, id: id, in: database)
    }

    /// An APNs answer, or a `502` when APNs could not be reached.
    static func call(_ request: () async throws -> APNSResponse) async throws -> APNSResponse {
        do {
            return try await request()
        } catch let error as APNSTransportError {
            throw APIError(status: 502, ChannelMessages.apnsUnreachable(error.message))
        }
    }
}
