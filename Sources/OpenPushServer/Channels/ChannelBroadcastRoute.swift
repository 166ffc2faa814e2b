import HTTPServer
import OpenPushCore
import Postgres

/// `POST /apps/{app_id}/live_activities/channels/{channel_id}/notifications`: the update route's
/// body, sent as one APNs broadcast to the channel. Counted by the send routes' rate limit; the
/// message is queued as a job with one recipient, the channel, and sent by the workers.
enum ChannelBroadcastRoute {
    /// The `live_activity_clocks` key of a channel: activity ids cannot hold a `/`, so it never
    /// meets one of the app's activities.
    static func clockKey(_ channelRowID: String) -> String { "channel/" + channelRowID }

    @Sendable static func send(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "broadcast on channels")
        let appID = principal.app.id
        let channelRowID = context.pathParameter("channel_id")
        let body = Result { try context.jsonObject() }.mapError { $0 as? APIError ?? .badRequest(SendMessages.bodyMustBeObject) }
        let parsed = body.flatMap { ChannelBroadcast.parse($0, channelID: channelRowID).mapError(APIError.init) }
        let now = context.services.now()
        let outcome = try await SendTransaction.run(appID: appID, now: now, database: context.services.database) { connection in
            guard let channel = try ChannelStore.find(appID: appID, id: channelRowID, in: connection) else {
                throw APIError.notFound(ChannelMessages.unknownChannel(channelRowID))
            }
            let send = try parsed.get()
            let timestamp = try MessageStore.nextActivityTimestamp(appID: appID, activityID: clockKey(channel.id), now: now,
                                                                   in: connection)
            let messageID = try MessageStore.insert(.init(
                appID: appID, kind: "live_activity", event: send.event, name: send.name, activityType: nil,
                activityID: channel.id, request: (try? body.get()) ?? [:], send: send, audienceTotal: 1, truncated: false,
                tenantID: principal.tenantID, pushTimestamp: timestamp), now: now, in: connection)
            try connection.query("""
                INSERT INTO live_activity_broadcasts (message_id, app_id, channel, channel_id, environment)
                VALUES (\(messageID), \(appID), \(channel.id), \(channel.channelID), \(channel.environment.rawValue))
                """)
            try DeliveryQueue.enqueue(messageID: messageID, appID: appID, lane: .urgent, tokenKind: .channel, recipients: """
                SELECT \(channel.id)::text AS subscription_id, \(channel.channelID)::text AS token,
                       NULL::text AS live_activity_id, NULL::int AS badge
                """, in: connection)
            try MessageStore.notifyWorkers(appID: appID, in: connection)
            return .created(status: 201, body: ["id": .string(messageID)], audienceTotal: 1, audienceSent: 1)
        }
        return try outcome.response()
    }
}
