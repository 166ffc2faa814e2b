import OpenPushCore
import Postgres

/// Everything a claimed job needs to become pushes, loaded in a few queries (one per table)
/// rather than per recipient: the message, the app, and each recipient's current state.
///
/// Every map is keyed by app as well as by id, and the lookups take the delivery: a recipient
/// can only ever see its own app's messages, devices, users and counters, even if two apps
/// share an `external_id` or a batch ever held several apps' jobs.
struct DeliveryContext: Sendable {
    /// An id within one app: the key of every per-batch map.
    struct Key: Hashable, Sendable {
        var appID: String
        var id: String
    }

    struct Message: Sendable {
        var id: String
        var appID: String
        var send: LiveActivitySend?
        /// A notification's validated request (kind `notification`).
        var notification: NotificationSend?
        var activityType: String?
        /// Parsed once per job, rendered per recipient.
        var headings: LocalizedTemplates
        var contents: LocalizedTemplates
        var subtitle = LocalizedTemplates(nil)
        /// When the message became due: its `send_after`, else its creation.
        var sendTime: Double = 0
        /// A Live Activity push's `aps.timestamp`, fixed when it was enqueued (nil for messages
        /// queued before it was: then it is computed at send time).
        var pushTimestamp: Int?
        var cancelled = false
    }

    struct App: Sendable {
        var id: String
        var bundleID: String?
        var watchBundleID: String?
        var autoEndMinutes: Int?
        var onesignalAlias: Bool
        var p8: String?
        var keyID: String?
        var teamID: String?
        var updatedAt: Double
    }

    struct Subscription: Sendable {
        var id: String
        var appID: String
        var platform: String
        var environment: String
        var language: String?
        var country: String?
        var appVersion: String?
        var tags: [String: String]
        var externalID: String?
        /// Whether it may still be sent to at all (enabled, not retired).
        var reachable: Bool
        /// The device token now, and whether APNs called it dead.
        var token: String
        var tokenInvalid: Bool
        var widgetToken: String?
    }

    struct Activity: Sendable {
        var id: String
        var appID: String
        var staleAt: Double
        var lastPushTimestamp: Int?
        var endedReason: String?
    }

    /// A stored message that no longer decodes: its message fails loudly, never silently.
    struct UndecodableMessage: Error, CustomStringConvertible {
        var messageID: String
        var reason: String
        var description: String { "message \(messageID) does not decode: \(reason)" }
    }

    private(set) var messages: [Key: Message] = [:]
    private(set) var apps: [String: App] = [:]
    private(set) var subscriptions: [Key: Subscription] = [:]
    private(set) var activities: [Key: Activity] = [:]
    /// (app, subscription id) → the push-to-start tokens it holds now.
    private(set) var pushToStartTokens: [Key: Set<String>] = [:]
    /// (app, external id) → the user's aliases, for Liquid's `user`.
    private(set) var aliases: [Key: [String: String]] = [:]

    func message(for delivery: ClaimedDelivery) -> Message? {
        messages[Key(appID: delivery.appID, id: delivery.messageID)]
    }

    func app(for delivery: ClaimedDelivery) -> App? { apps[delivery.appID] }

    func subscription(for delivery: ClaimedDelivery) -> Subscription? {
        subscriptions[Key(appID: delivery.appID, id: delivery.subscriptionID)]
    }

    func activity(for delivery: ClaimedDelivery) -> Activity? {
        delivery.liveActivityID.flatMap { activities[Key(appID: delivery.appID, id: $0)] }
    }

    func holdsPushToStartToken(_ delivery: ClaimedDelivery) -> Bool {
        pushToStartTokens[Key(appID: delivery.appID, id: delivery.subscriptionID)]?.contains(delivery.token) ?? false
    }

    /// The aliases of the user behind `externalID` in `appID` only.
    func userAliases(appID: String, externalID: String) -> [String: String] {
        aliases[Key(appID: appID, id: externalID)] ?? [:]
    }

    static func load(for deliveries: [ClaimedDelivery], in connection: PostgresConnection) throws -> DeliveryContext {
        var context = DeliveryContext()
        let messageIDs = Array(Set(deliveries.map(\.messageID)))
        for row in try connection.query("""
            SELECT id, app_id, kind, event, activity_type, activity_id, request::text AS request, push_timestamp,
                   cancelled_at IS NOT NULL AS cancelled,
                   extract(epoch FROM COALESCE(send_after, created_at))::float8 AS send_time
            FROM messages WHERE id = ANY(\(messageIDs)::text[])
            """) {
            let message = try decodeMessage(row)
            context.messages[Key(appID: message.appID, id: message.id)] = message
        }
        let appIDs = Array(Set(deliveries.map(\.appID)))
        for row in try connection.query("""
            SELECT id, apns_bundle_id, apns_watch_bundle_id, live_activity_auto_end_minutes, onesignal_alias, apns_p8,
                   apns_key_id, apns_team_id, extract(epoch FROM updated_at)::float8 AS updated_at
            FROM apps WHERE id = ANY(\(appIDs)::text[])
            """) {
            let id: String = try row.decode("id")
            context.apps[id] = App(id: id, bundleID: try row.decode("apns_bundle_id"), watchBundleID: try row.decode("apns_watch_bundle_id"),
                                   autoEndMinutes: try row.decode("live_activity_auto_end_minutes"),
                                   onesignalAlias: try row.decode("onesignal_alias"), p8: try row.decode("apns_p8"),
                                   keyID: try row.decode("apns_key_id"), teamID: try row.decode("apns_team_id"),
                                   updatedAt: try row.decode("updated_at"))
        }
        let subscriptionIDs = Array(Set(deliveries.map(\.subscriptionID)))
        for row in try connection.query("""
            SELECT id, app_id, platform, environment, language, country, app_version, tags::text AS tags, external_id,
                   enabled AND retired_at IS NULL AS reachable, token, token_invalid_at IS NOT NULL AS token_invalid,
                   widget_push_token
            FROM subscriptions WHERE id = ANY(\(subscriptionIDs)::text[])
            """) {
            let id: String = try row.decode("id")
            let appID: String = try row.decode("app_id")
            let tagObject = (try? JSONValue.parse(try row.decode("tags", as: String.self)))?.objectValue ?? [:]
            let tags = Dictionary(uniqueKeysWithValues: tagObject.compactMap { entry in entry.value.stringValue.map { (entry.key, $0) } })
            context.subscriptions[Key(appID: appID, id: id)] = Subscription(
                id: id, appID: appID, platform: try row.decode("platform"), environment: try row.decode("environment"),
                language: try row.decode("language"), country: try row.decode("country"), appVersion: try row.decode("app_version"),
                tags: tags, externalID: try row.decode("external_id"), reachable: try row.decode("reachable"),
                token: try row.decode("token"), tokenInvalid: try row.decode("token_invalid"),
                widgetToken: try row.decode("widget_push_token"))
        }
        let activityIDs = Array(Set(deliveries.compactMap(\.liveActivityID)))
        if !activityIDs.isEmpty {
            for row in try connection.query("""
                SELECT id, app_id, extract(epoch FROM stale_at)::float8 AS stale_at, last_push_timestamp, ended_reason
                FROM live_activities WHERE id = ANY(\(activityIDs)::text[])
                """) {
                let id: String = try row.decode("id")
                let appID: String = try row.decode("app_id")
                let last: Int64? = try row.decode("last_push_timestamp")
                context.activities[Key(appID: appID, id: id)] = Activity(
                    id: id, appID: appID, staleAt: try row.decode("stale_at"), lastPushTimestamp: last.map(Int.init),
                    endedReason: try row.decode("ended_reason"))
            }
        }
        if deliveries.contains(where: { $0.tokenKind == "push_to_start" }) {
            for row in try connection.query("""
                SELECT app_id, subscription_id, token FROM push_to_start_tokens
                WHERE subscription_id = ANY(\(subscriptionIDs)::text[])
                """) {
                let key = Key(appID: try row.decode("app_id"), id: try row.decode("subscription_id"))
                context.pushToStartTokens[key, default: []].insert(try row.decode("token"))
            }
        }
        let externalIDs = Array(Set(context.subscriptions.values.compactMap(\.externalID)))
        if !externalIDs.isEmpty {
            for row in try connection.query("""
                SELECT e.app_id, e.value AS external_id, a.label, a.value FROM user_aliases e
                JOIN user_aliases a ON a.user_id = e.user_id AND a.app_id = e.app_id
                WHERE e.label = 'external_id' AND e.value = ANY(\(externalIDs)::text[]) AND e.app_id = ANY(\(appIDs)::text[])
                """) {
                let key = Key(appID: try row.decode("app_id"), id: try row.decode("external_id"))
                context.aliases[key, default: [:]][try row.decode("label")] = try row.decode("value")
            }
        }
        return context
    }

    /// The stored request, decoded loudly: it was validated when it was sent, so a failure here
    /// means the stored form changed under it, and the message must fail, not go out wrong.
    private static func decodeMessage(_ row: PostgresRow) throws -> Message {
        let id: String = try row.decode("id")
        let appID: String = try row.decode("app_id")
        guard let request = (try? JSONValue.parse(try row.decode("request", as: String.self)))?.objectValue else {
            throw UndecodableMessage(messageID: id, reason: "the stored request is not a JSON object")
        }
        let timestamp: Int64? = try row.decode("push_timestamp")
        let cancelled: Bool = try row.decode("cancelled")
        if try row.decode("kind", as: String.self) == "notification" {
            let send = try decoded(NotificationSendParser.parse(request), messageID: id)
            return Message(id: id, appID: appID, send: nil, notification: send, activityType: nil,
                           headings: LocalizedTemplates(send.headings), contents: LocalizedTemplates(send.contents),
                           subtitle: LocalizedTemplates(send.subtitle), sendTime: try row.decode("send_time"),
                           cancelled: cancelled)
        }
        let event: String? = try row.decode("event")
        let send: LiveActivitySend
        switch event {
        case "start": send = try decoded(LiveActivitySendParser.parseStart(request), messageID: id)
        case "update", "end":
            send = try decoded(LiveActivitySendParser.parseUpdateOrEnd(request, activityID: try row.decode("activity_id")),
                               messageID: id)
        default: throw UndecodableMessage(messageID: id, reason: "unknown event \(event ?? "null")")
        }
        return Message(id: id, appID: appID, send: send, activityType: try row.decode("activity_type"),
                       headings: LocalizedTemplates(send.headings), contents: LocalizedTemplates(send.contents),
                       pushTimestamp: timestamp.map(Int.init), cancelled: cancelled)
    }

    private static func decoded<Value>(_ result: Result<Value, APIError>, messageID: String) throws -> Value {
        switch result {
        case .success(let value): return value
        case .failure(let error): throw UndecodableMessage(messageID: messageID, reason: error.messages.joined(separator: "; "))
        }
    }
}
