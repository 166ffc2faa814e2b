import OpenPushCore
import OpenPushDelivery
import Postgres

/// The one way a message is queued, whatever it sends: stored in the first state of its
/// lifecycle, its recipients queued as jobs (a notification's are expanded by the workers
/// later), settled by `MessageLifecycleStore` (a message that queued nobody ends here), and the
/// workers woken when the transaction commits. Call inside the send's transaction: a refusal
/// thrown after it rolls all of it back.
enum MessageEnqueue {
    enum Recipients: Sendable {
        /// A notification's audience, expanded into jobs by the workers from `send_after`.
        case expandedLater
        /// A Live Activity audience (see `MessageStore.queueLiveActivity`): counted, and the
        /// first `MessageStore.liveActivityFanOutCap` queued in the urgent lane.
        case liveActivity(audience: PostgresQuery, tokenKind: TokenKind)
        /// A channel broadcast: one recipient, the channel.
        case channel(ChannelStore.Channel)
    }

    struct Enqueued: Sendable {
        var messageID: String
        var audience: MessageStore.QueuedAudience
    }

    /// A notification whose jobs are written with it (`ImmediateExpansion`), queued as the last
    /// page of an expansion leaves it; nil when it reaches nobody, and then nothing is stored.
    static func enqueueExpanded(_ message: MessageStore.NewMessage, send: NotificationSend, targeted: TargetedAudience,
                                now: Double, in connection: PostgresConnection) throws -> String? {
        try ImmediateExpansion.enqueue(message, send: send, targeted: targeted, now: now, in: connection)
    }

    static func enqueue(_ message: MessageStore.NewMessage, to recipients: Recipients, now: Double,
                        in connection: PostgresConnection) throws -> Enqueued {
        var message = message
        if case .channel = recipients { message.audienceTotal = 1 }
        let messageID = try MessageStore.insert(message, now: now, in: connection)
        let audience: MessageStore.QueuedAudience
        switch recipients {
        case .expandedLater:
            audience = .init(total: 0, queued: 0)
        case .liveActivity(let query, let tokenKind):
            // The audience is read once, counted and queued together.
            audience = try MessageStore.queueLiveActivity(messageID: messageID, appID: message.appID, tokenKind: tokenKind,
                                                          audience: query, in: connection)
            try MessageStore.recordAudience(audience, messageID: messageID, in: connection)
        case .channel(let channel):
            try ChannelBroadcastStore.insert(messageID: messageID, channel: channel, in: connection)
            let queued = try DeliveryQueue.enqueue(messageID: messageID, appID: message.appID, lane: .urgent, tokenKind: .channel,
                                                   recipients: ChannelBroadcastStore.recipient(channel), in: connection)
            audience = .init(total: 1, queued: queued)
        }
        if !message.send.kind.expands {
            try MessageLifecycleStore.apply(.jobsQueued, messageID: messageID, in: connection)
        }
        try MessageStore.notifyWorkers(appID: message.appID, in: connection)
        return Enqueued(messageID: messageID, audience: audience)
    }
}
