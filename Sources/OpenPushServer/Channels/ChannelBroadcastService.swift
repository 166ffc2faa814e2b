import OpenPushCore
import OpenPushDelivery
import Postgres

/// Sending a broadcast: under the send routes' rate limit and the app's send lock, the channel
/// is found, the push given its place on the channel's clock, and the message queued with one
/// recipient, the channel (`MessageEnqueue`).
enum ChannelBroadcastService {
    static func send(_ parsed: Result<LiveActivitySend, APIError>, request: JSONObject, channelRowID: String,
                     principal: RESTPrincipal, now: Double, database: PostgresPool) async throws -> SendOutcome {
        let appID = principal.app.id
        return try await SendTransaction.run(appID: appID, now: now, database: database) { connection in
            guard let channel = try ChannelStore.find(appID: appID, id: channelRowID, in: connection) else {
                throw APIError.notFound(ChannelMessages.unknownChannel(channelRowID))
            }
            let send = try parsed.get()
            let timestamp = try MessageStore.nextActivityTimestamp(appID: appID, activityID: ChannelBroadcastStore.clockKey(channel.id),
                                                                   now: now, in: connection)
            let queued = try MessageEnqueue.enqueue(.init(
                appID: appID, send: .liveActivity(send), event: send.event, name: send.name, activityID: channel.id,
                request: request, tenantID: principal.tenantID, pushTimestamp: timestamp), to: .channel(channel), now: now,
                in: connection)
            return .created(status: 201, body: ["id": .string(queued.messageID)], audienceTotal: 1, audienceSent: 1)
        }
    }
}
