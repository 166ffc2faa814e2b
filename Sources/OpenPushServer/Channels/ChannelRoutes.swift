import HTTPServer
import OpenPushCore
import OpenPushDelivery

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
        let fields = try ChannelFields.parse(try context.jsonObject()).get()
        let stored = try await ChannelService.create(fields, appID: principal.app.id, services: context.services)
        return .json(stored.json, status: 201)
    }

    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let page = try PageRequest.read(context.request.query)
        let (total, channels) = try await ChannelStore.page(appID: principal.app.id, limit: page.limit, offset: page.offset,
                                                            in: context.services.database)
        return .json([
            "total_count": .int(Int64(total)), "offset": .int(Int64(page.offset)), "limit": .int(Int64(page.limit)),
            "channels": .array(channels.map(\.json)),
        ])
    }

    @Sendable static func show(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let id = context.pathParameter("channel_id")
        guard let channel = try await ChannelStore.find(appID: principal.app.id, id: id, in: context.services.database)
        else { throw APIError.notFound(ChannelMessages.unknownChannel(id)) }
        return .json(channel.json)
    }

    /// Deletes the channel at APNs, then here (`ChannelService.delete`).
    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "manage channels")
        try await ChannelService.delete(id: context.pathParameter("channel_id"), appID: principal.app.id,
                                        services: context.services)
        return HTTPResponse(status: 204)
    }

    /// `GET /v1/apps/{app_id}/live-activities/channels?name=`: the APNs channel id an app
    /// subscribes its Live Activity with, without a round trip through its backend.
    @Sendable static func lookup(_ context: RouteContext) async throws -> HTTPResponse {
        let app = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
        guard let name = context.request.query["name"], !name.isEmpty else { throw APIError.badRequest(ChannelMessages.nameQuery) }
        guard let channel = try await ChannelStore.find(appID: app.id, name: name, in: context.services.database)
        else { throw APIError.notFound(ChannelMessages.unknownChannelName(name)) }
        return .json(["channel_id": .string(channel.channelID), "environment": .string(channel.environment.rawValue)])
    }
}
