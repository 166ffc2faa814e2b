import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `POST /apps/{app_id}/live_activities/channels/{channel_id}/notifications`: the update route's
/// body, sent as one APNs broadcast to the channel. Counted by the send routes' rate limit; the
/// message is queued as a job with one recipient, the channel, and sent by the workers.
enum ChannelBroadcastRoute {
    @Sendable static func send(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "broadcast on channels")
        let channelRowID = context.pathParameter("channel_id")
        let body = Result { try context.jsonObject() }.mapError { $0 as? APIError ?? .badRequest(SendMessages.bodyMustBeObject) }
        let parsed = body.flatMap { ChannelBroadcast.parse($0, channelID: channelRowID).mapError(APIError.init) }
        let outcome = try await ChannelBroadcastService.send(parsed, request: (try? body.get()) ?? [:], channelRowID: channelRowID,
                                                             principal: principal, now: context.services.now(),
                                                             database: context.services.database)
        return try outcome.response()
    }
}
