import APNs
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Postgres

/// Broadcast channels of an app (REST key, `{"errors"}`): create, list, view and delete them —
/// at APNs through its channel management hosts, and here — and broadcast a Live Activity
/// update or end on one. Plus the native lookup an app subscribes with (SDK key, `{"detail"}`).
enum ChannelRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/live_activities/channels", create)
        router.add(.get, "/apps/{app_id}/live_activities/channels", list)
        router.add(.get, "/apps/{app_id}/live_activities/channels/{channel_id}", show)
        router.add(.delete, "/apps/{app_id}/live_activities/channels/{channel_id}", delete)
        router.add(.post, "/apps/{app_id}/live_activities/channels/{channel_id}/notifications", ChannelBroadcastRoute.send)
        router.add(.get, "/v1/apps/{app_id}/live-activities/channels", lookup)
    }

    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "manage channels")
        let appID = principal.app.id
        let fields = try ChannelFields.parse(try context.jsonObject()).get()
        let database = context.services.database
        if try await database.withConnection({ try ChannelStore.nameExists(appID: appID, name: fields.name, in: $0) }) {
            throw APIError(status: 409, ChannelMessages.nameTaken(fields.name))
        }
        let app = try await ChannelAPNs.credential(appID: appID, keyring: context.services.configuration.secretKeyring,
                                                   in: database)
        let client = try context.services.apns.client(context.services.configuration)
        let environment = APNSEnvironment(fields.environment)
        let response = try await call {
            try await client.createChannel(bundleID: app.bundleID, storagePolicy: fields.storagePolicy,
                                           requestID: ChannelAPNs.requestID(), credential: app.credential,
                                           environment: environment)
        }
        guard response.status == 201, let channelID = response.channelID, !channelID.isEmpty else {
            throw APIError(status: 502, ChannelMessages.apnsRefused(response.status, response.reason?.rawValue))
        }
        let now = context.services.now()
        let channel = ChannelStore.Channel(
            id: Identifier.make(prefix: "chn", now: now, random: KeyMaterial.identifierEntropy()), appID: appID,
            name: fields.name, channelID: channelID, storagePolicy: fields.storagePolicy,
            environment: fields.environment, createdAt: now)
        guard let stored = try await database.transaction({ try ChannelStore.insert(channel, in: $0) }) else {
            // Another request took the name meanwhile: this channel is not needed at APNs.
            _ = try? await client.deleteChannel(bundleID: app.bundleID, channelID: channelID, requestID: ChannelAPNs.requestID(),
                                                credential: app.credential, environment: environment)
            throw APIError(status: 409, ChannelMessages.nameTaken(fields.name))
        }
        return .json(stored.json, status: 201)
    }

    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let page = try PageRequest.read(context.request.query)
        let (total, channels) = try await context.services.database.withConnection {
            try ChannelStore.page(appID: principal.app.id, limit: page.limit, offset: page.offset, in: $0)
        }
        return .json([
            "total_count": .int(Int64(total)), "offset": .int(Int64(page.offset)), "limit": .int(Int64(page.limit)),
            "channels": .array(channels.map(\.json)),
        ])
    }

    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let id = context.pathParameter("channel_id")
        guard let channel = try await context.services.database.withConnection({
            try ChannelStore.find(appID: principal.app.id, id: id, in: $0)
        }) else { throw APIError.notFound(ChannelMessages.unknownChannel(id)) }
        return .json(channel.json)
    }

    /// Deletes the channel at APNs, then here. A channel APNs no longer knows is deleted here too.
    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "manage channels")
        let appID = principal.app.id
        let id = context.pathParameter("channel_id")
        let database = context.services.database
        guard let channel = try await database.withConnection({ try ChannelStore.find(appID: appID, id: id, in: $0) }) else {
            throw APIError.notFound(ChannelMessages.unknownChannel(id))
        }
        let app = try await ChannelAPNs.credential(appID: appID, keyring: context.services.configuration.secretKeyring,
                                                   in: database)
        let client = try context.services.apns.client(context.services.configuration)
        let response = try await call {
            try await client.deleteChannel(bundleID: app.bundleID, channelID: channel.channelID,
                                           requestID: ChannelAPNs.requestID(), credential: app.credential,
                                           environment: APNSEnvironment(channel.environment))
        }
        guard response.status == 204 || response.status == 200 || response.reason == .channelNotRegistered else {
            throw APIError(status: 502, ChannelMessages.apnsRefused(response.status, response.reason?.rawValue))
        }
        try await database.transaction { try ChannelStore.delete(appID: appID, id: id, in: $0) }
        return HTTPResponse(status: 204)
    }

    /// `GET /v1/apps/{app_id}/live-activities/channels?name=`: the APNs channel id an app
    /// subscribes its Live Activity with, without a round trip through its backend.
    @Sendable static func lookup(_ context: RouteContext) async throws -> HTTPResponse {
        let app = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
        guard let name = context.request.query["name"], !name.isEmpty else { throw APIError.badRequest(ChannelMessages.nameQuery) }
        guard let channel = try await context.services.database.withConnection({
            try ChannelStore.find(appID: app.id, name: name, in: $0)
        }) else { throw APIError.notFound(ChannelMessages.unknownChannelName(name)) }
        return .json(["channel_id": .string(channel.channelID), "environment": .string(channel.environment.rawValue)])
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
