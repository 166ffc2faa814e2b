import OpenPushCore
import Postgres

/// Everything a batch of claimed deliveries needs to become pushes, loaded in a few queries
/// (one per table) rather than per row.
///
/// A batch holds rows of several apps, so every map is keyed by app as well as by id, and the
/// lookups take the delivery: a row can only ever see its own app's messages, devices, users
/// and counters, even if two apps share an `external_id` or an id were ever reused.
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
        /// Parsed once per batch, rendered per recipient.
        var headings: LocalizedTemplates
        var contents: LocalizedTemplates
        var subtitle = LocalizedTemplates(nil)
        /// When the message became due: its `send_after`, else its creation.
        var sendTime: Double = 0
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
    }

    struct Activity: Sendable {
        var id: String
        var appID: String
        var staleAt: Double
        var lastPushTimestamp: Int?
    }

    private(set) var messages: [Key: Message] = [:]
    private(set) var apps: [String: App] = [:]
    private(set) var subscriptions: [Key: Subscription] = [:]
    private(set) var activities: [Key: Activity] = [:]
    /// (app, external id) → the user's aliases, for Liquid's `user`.
    private(set) var aliases: [Key: [String: String]] = [:]
    /// (app, delivery id) → the badge number it carries (notifications with a badge only).
    private(set) var badges: [Key: Int] = [:]

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

    func badge(for delivery: ClaimedDelivery) -> Int? {
        badges[Key(appID: delivery.appID, id: String(delivery.id))]
    }

    /// The aliases of the user behind `externalID` in `appID` only.
    func userAliases(appID: String, externalID: String) -> [String: String] {
        aliases[Key(appID: appID, id: externalID)] ?? [:]
    }

    static func load(for deliveries: [ClaimedDelivery], in connection: PostgresConnection) throws -> DeliveryContext {
        var context = DeliveryContext()
        let messageIDs = Array(Set(deliveries.map(\.messageID)))
        for row in try connection.query("""
            SELECT id, app_id, kind, event, activity_type, activity_id, request::text AS request,
                   extract(epoch FROM COALESCE(send_after, created_at))::float8 AS send_time
            FROM messages WHERE id = ANY(\(messageIDs)::text[])
            """) {
            let id: String = try row.decode("id")
            let key = Key(appID: try row.decode("app_id"), id: id)
            if try row.decode("kind", as: String.self) == "notification" {
                context.messages[key] = try notificationMessage(row)
                continue
            }
            let event: String? = try row.decode("event")
            let request = (try? JSONValue.parse(try row.decode("request", as: String.self)))?.objectValue ?? [:]
            var send: LiveActivitySend?
            switch event {
            case "start": send = try? LiveActivitySendParser.parseStart(request).get()
            case "update", "end":
                send = try? LiveActivitySendParser.parseUpdateOrEnd(request, activityID: try row.decode("activity_id")).get()
            default: send = nil
            }
            context.messages[key] = Message(id: id, appID: key.appID, send: send, activityType: try row.decode("activity_type"),
                                           headings: LocalizedTemplates(send?.headings), contents: LocalizedTemplates(send?.contents))
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
            SELECT id, app_id, platform, environment, language, country, app_version, tags::text AS tags, external_id
            FROM subscriptions WHERE id = ANY(\(subscriptionIDs)::text[])
            """) {
            let id: String = try row.decode("id")
            let appID: String = try row.decode("app_id")
            let tagObject = (try? JSONValue.parse(try row.decode("tags", as: String.self)))?.objectValue ?? [:]
            let tags = Dictionary(uniqueKeysWithValues: tagObject.compactMap { entry in entry.value.stringValue.map { (entry.key, $0) } })
            context.subscriptions[Key(appID: appID, id: id)] = Subscription(
                id: id, appID: appID, platform: try row.decode("platform"), environment: try row.decode("environment"),
                language: try row.decode("language"), country: try row.decode("country"), appVersion: try row.decode("app_version"),
                tags: tags, externalID: try row.decode("external_id"))
        }
        let activityIDs = Array(Set(deliveries.compactMap(\.liveActivityID)))
        if !activityIDs.isEmpty {
            for row in try connection.query("""
                SELECT id, app_id, extract(epoch FROM stale_at)::float8 AS stale_at, last_push_timestamp
                FROM live_activities WHERE id = ANY(\(activityIDs)::text[])
                """) {
                let id: String = try row.decode("id")
                let appID: String = try row.decode("app_id")
                let last: Int64? = try row.decode("last_push_timestamp")
                context.activities[Key(appID: appID, id: id)] = Activity(id: id, appID: appID, staleAt: try row.decode("stale_at"), lastPushTimestamp: last.map(Int.init))
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
        if context.messages.values.contains(where: { ($0.notification?.badge ?? .none) != .none }) {
            for row in try connection.query("""
                SELECT id, app_id, badge FROM deliveries WHERE id = ANY(\(deliveries.map(\.id))::bigint[]) AND badge IS NOT NULL
                """) {
                let id: Int64 = try row.decode("id")
                context.badges[Key(appID: try row.decode("app_id"), id: String(id))] = try row.decode("badge")
            }
        }
        return context
    }

    private static func notificationMessage(_ row: PostgresRow) throws -> Message {
        let request = (try? JSONValue.parse(try row.decode("request", as: String.self)))?.objectValue ?? [:]
        let send = try? NotificationSendParser.parse(request).get()
        return Message(id: try row.decode("id"), appID: try row.decode("app_id"), send: nil, notification: send, activityType: nil,
                       headings: LocalizedTemplates(send?.headings), contents: LocalizedTemplates(send?.contents),
                       subtitle: LocalizedTemplates(send?.subtitle), sendTime: try row.decode("send_time"))
    }
}
