import OpenPushCore
import Postgres

extension DeliveryContext {
    /// Loads what the deliveries need, one query per table, sent together in one round trip
    /// (the users' aliases, needed only for Liquid, in a second). Given the leased job they
    /// come from, PostgreSQL reads the job's own id arrays: a thousand ids are neither
    /// formatted here nor parsed there. (The cast makes the subquery an array value: PostgreSQL
    /// reads `ANY((SELECT …))` as a set of rows, each an array.)
    static func load(for deliveries: [ClaimedDelivery], job: DeliveryJob? = nil,
                     in connection: PostgresConnection) throws -> DeliveryContext {
        var context = DeliveryContext()
        let messageIDs = Array(Set(deliveries.map(\.messageID)))
        let appIDs = Array(Set(deliveries.map(\.appID)))
        let hasActivities = deliveries.contains { $0.liveActivityID != nil }
        let pushToStart = deliveries.contains(where: { $0.tokenKind == .pushToStart })
        let subscriptionIDs: PostgresQuery = job.map { "(SELECT subscription_ids FROM delivery_jobs WHERE id = \($0.id))::text[]" }
            ?? "\(Array(Set(deliveries.map(\.subscriptionID))))::text[]"
        let activityIDs: PostgresQuery = job.map { "(SELECT live_activity_ids FROM delivery_jobs WHERE id = \($0.id))::text[]" }
            ?? "\(Array(Set(deliveries.compactMap(\.liveActivityID))))::text[]"
        var queries: [PostgresQuery] = ["""
            SELECT id, app_id, kind, event, activity_type, activity_id, \(StoredMessage.columns), push_timestamp,
                   cancelled_at IS NOT NULL AS cancelled,
                   extract(epoch FROM COALESCE(send_after, created_at))::float8 AS send_time
            FROM messages WHERE id \(oneOf(messageIDs))
            """, """
            SELECT id, apns_bundle_id, apns_watch_bundle_id, live_activity_auto_end_minutes, onesignal_alias, apns_p8,
                   apns_key_id, apns_team_id, CASE WHEN apns_auth = 'certificate' THEN apns_certificate END AS apns_certificate,
                   extract(epoch FROM updated_at)::float8 AS updated_at,
                   dedupe_window_days, stale_alert_seconds, default_privacy_text, fcm_service_account,
                   fcm_paused_at IS NOT NULL AS fcm_paused, web_push_vapid_private_key, web_push_vapid_public_key,
                   web_push_subject, web_push_paused_at IS NOT NULL AS web_push_paused
            FROM apps WHERE id \(oneOf(appIDs))
            """, """
            SELECT id, app_id, platform, environment, language, country, app_version, tags::text AS tags, external_id,
                   enabled AND retired_at IS NULL AS reachable, token, token_invalid_at IS NOT NULL AS token_invalid,
                   widget_push_token, hide_details,
                   quiet_hours_start IS NOT NULL OR cardinality(muted_threads) > 0 AS sets_attention,
                   web_p256, web_auth, web_type
            FROM subscriptions WHERE id = ANY(\(subscriptionIDs))
            """]
        if hasActivities {
            queries.append("""
                SELECT id, app_id, extract(epoch FROM stale_at)::float8 AS stale_at, last_push_timestamp, ended_reason
                FROM live_activities WHERE id = ANY(\(activityIDs))
                """)
        }
        // The apps whose push-to-start recipients the check below covers.
        var pushToStartApps: [String] = []
        if pushToStart {
            // Only the recipients whose token is gone (none, mostly), not every token held: each
            // recipient is looked up by the (app_id, subscription_id, …) key either way. A job
            // no token change of its app can have overtaken looks up none (`PushToStartChanges`).
            let recipients: PostgresQuery
            if let job {
                recipients = """
                    (SELECT j.app_id, r.subscription_id, r.token
                     FROM delivery_jobs j, unnest(j.subscription_ids, j.tokens) AS r(subscription_id, token)
                     WHERE j.id = \(job.id) AND \(PushToStartChanges.mayHaveChanged))
                    """
                pushToStartApps = [job.appID]
            } else {
                let starts = deliveries.filter { $0.tokenKind == .pushToStart }
                recipients = "unnest(\(starts.map(\.appID))::text[], \(starts.map(\.subscriptionID))::text[], \(starts.map(\.token))::text[])"
                pushToStartApps = Array(Set(starts.map(\.appID)))
            }
            queries.append("""
                SELECT r.app_id, r.subscription_id, r.token FROM \(recipients) AS r(app_id, subscription_id, token)
                WHERE NOT EXISTS (SELECT 1 FROM push_to_start_tokens p
                                  WHERE p.app_id = r.app_id AND p.subscription_id = r.subscription_id AND p.token = r.token)
                """)
        }
        // A device's extra tokens of the job's kind, only for such a job: an ordinary send reads none.
        let extraKinds = Set(deliveries.compactMap(\.tokenKind.extraKind)).map(\.rawValue).sorted()
        if !extraKinds.isEmpty {
            queries.append("""
                SELECT app_id, subscription_id, kind, token FROM device_push_tokens
                WHERE subscription_id = ANY(\(subscriptionIDs)) AND app_id \(oneOf(appIDs)) AND kind = ANY(\(extraKinds)::text[])
                """)
        }
        let results = try connection.pipeline(queries.map(\.prepared))
        // Only texts that may read `user` need the users' aliases.
        var readsUsers = false
        for row in results[0] {
            let message = try decodeMessage(row)
            readsUsers = readsUsers || message.liquidTagNames == nil
            context.add(message)
        }
        for row in results[1] {
            var app = try App(row: row)
            app.dedupeWindowDays = try row.decode("dedupe_window_days")
            app.staleAlertSeconds = try row.decode("stale_alert_seconds")
            app.defaultPrivacyText = try row.decode("default_privacy_text")
            app.fcmServiceAccount = try row.decode("fcm_service_account")
            app.fcmPaused = try row.decode("fcm_paused")
            app.webPushVAPIDKey = try row.decode("web_push_vapid_private_key")
            app.webPushVAPIDPublicKey = try row.decode("web_push_vapid_public_key")
            app.webPushSubject = try row.decode("web_push_subject")
            app.webPushPaused = try row.decode("web_push_paused")
            context.add(app)
        }
        var externalIDs: Set<String> = []
        let rows = results[2]
        let column = try SubscriptionColumns(rows)
        context.reserveCapacity(subscriptions: rows.count)
        for row in rows {
            let tagText: String = try row.decode(column.tags)
            // Most devices have no tags: no JSON parse for those.
            let tagObject = tagText == "{}" ? [:] : (try? JSONValue.parse(tagText))?.objectValue ?? [:]
            let tags = Dictionary(uniqueKeysWithValues: tagObject.compactMap { entry in entry.value.stringValue.map { (entry.key, $0) } })
            let environment: String = try row.decode(column.environment)
            // Only a browser subscription has keys (a CHECK holds the three together).
            let p256: String? = try row.decode(column.webP256)
            let auth: String? = try row.decode(column.webAuth)
            let webKeys = try p256.flatMap { p256 in
                try auth.map { DeliveryContext.Subscription.WebKeys(
                    p256dh: p256, auth: $0, browser: (try row.decode(column.webType) as String?).flatMap(WebPushBrowser.init(oneSignalType:)))
                }
            }
            guard let known = DeviceEnvironment(rawValue: environment) else {
                throw InvariantViolation("subscription environment '\(environment)' is neither production nor sandbox")
            }
            let subscription = Subscription(
                id: try row.decode(column.id), appID: try row.decode(column.appID), platform: try row.decode(column.platform),
                environment: known, language: try row.decode(column.language), country: try row.decode(column.country),
                appVersion: try row.decode(column.appVersion), tags: tags, externalID: try row.decode(column.externalID),
                reachable: try row.decode(column.reachable), token: try row.decode(column.token),
                tokenInvalid: try row.decode(column.tokenInvalid),
                widgetToken: try row.decode(column.widgetToken), hideDetails: try row.decode(column.hideDetails),
                setsAttention: try row.decode(column.setsAttention), webKeys: webKeys)
            if let externalID = subscription.externalID { externalIDs.insert(externalID) }
            context.add(subscription)
        }
        var next = 3
        if hasActivities {
            defer { next += 1 }
            for row in results[next] {
                let last: Int64? = try row.decode("last_push_timestamp")
                context.add(Activity(id: try row.decode("id"), appID: try row.decode("app_id"), staleAt: try row.decode("stale_at"),
                                     lastPushTimestamp: last.map(Int.init), endedReason: try row.decode("ended_reason")))
            }
        }
        if pushToStart {
            var gone: [String: [(subscriptionID: String, token: String)]] = [:]
            for row in results[next] {
                gone[try row.decode("app_id"), default: []].append((try row.decode("subscription_id"), try row.decode("token")))
            }
            for appID in pushToStartApps { context.checkedPushToStartTokens(appID: appID, gone: gone[appID] ?? []) }
            next += 1
        }
        if !extraKinds.isEmpty {
            for row in results[next] {
                let kindText: String = try row.decode("kind")
                guard let kind = ExtraTokenKind(rawValue: kindText) else {
                    throw InvariantViolation("device push token kind '\(kindText)' is unknown")
                }
                context.addExtraToken(try row.decode("token"), kind: kind, subscriptionID: try row.decode("subscription_id"),
                                      appID: try row.decode("app_id"))
            }
        }
        // The aliases serve only Liquid's `user.aliases`: plain texts, and texts reading only
        // tags, need none.
        if readsUsers, !externalIDs.isEmpty {
            // `IS TRUE` keeps the app check off the index: with it, PostgreSQL may AND the
            // user's aliases with every alias of the app (pkey), per recipient — 140 ms a job
            // for an app of 2,000 users. A user's aliases are all in its app; the check stays.
            for row in try connection.query("""
                SELECT e.app_id, e.value AS external_id, a.label, a.value FROM user_aliases e
                JOIN user_aliases a ON a.user_id = e.user_id
                WHERE e.label = 'external_id' AND e.value = ANY(\(Array(externalIDs))::text[]) AND e.app_id = ANY(\(appIDs)::text[])
                  AND (a.app_id = e.app_id) IS TRUE
                """) {
                context.addAlias(label: try row.decode("label"), value: try row.decode("value"), appID: try row.decode("app_id"),
                                 externalID: try row.decode("external_id"))
            }
        }
        try context.loadAttention(for: deliveries, in: connection)
        return context
    }

    /// `= $n` for a job's one id, `= ANY($n::text[])` for several. With an array of unknown length
    /// a prepared statement's generic plan looks dearer than a plan for the values at hand, so
    /// PostgreSQL planned these reads again for every job; with one value it keeps the generic plan.
    private static func oneOf(_ ids: [String]) -> PostgresQuery {
        ids.count == 1 ? "= \(ids[0])" : "= ANY(\(ids)::text[])"
    }

    /// The stored send, decoded loudly (`StoredMessage`): it was validated when it was sent, so a
    /// failure here means the stored form changed under it, and the message must fail, not go
    /// out wrong.
    private static func decodeMessage(_ row: PostgresRow) throws -> Message {
        let id: String = try row.decode("id")
        let appID: String = try row.decode("app_id")
        let timestamp: Int64? = try row.decode("push_timestamp")
        let cancelled: Bool = try row.decode("cancelled")
        if try MessageStore.kind(row) == .notification {
            let send = try StoredMessage.notification(row, messageID: id)
            return Message(id: id, appID: appID, notification: send, sendTime: try row.decode("send_time"), cancelled: cancelled)
        }
        let send = try StoredMessage.liveActivity(row, messageID: id, event: try row.decode("event"),
                                                  activityID: try row.decode("activity_id"))
        return Message(id: id, appID: appID, send: send, activityType: try row.decode("activity_type"),
                       pushTimestamp: timestamp.map(Int.init), cancelled: cancelled)
    }
}

/// Where each column of the subscriptions query is: found once per job, not by name in each
/// of its thousand rows.
private struct SubscriptionColumns {
    let id, appID, platform, environment, language, country, appVersion, tags, externalID, reachable, token, tokenInvalid,
        widgetToken, hideDetails, setsAttention, webP256, webAuth, webType: PostgresColumn

    init(_ rows: PostgresRows) throws {
        (id, appID, platform, environment) = try (rows.column("id"), rows.column("app_id"), rows.column("platform"),
                                                  rows.column("environment"))
        (language, country, appVersion, tags, externalID) = try (
            rows.column("language"), rows.column("country"), rows.column("app_version"), rows.column("tags"),
            rows.column("external_id"))
        (reachable, token, tokenInvalid, widgetToken) = try (rows.column("reachable"), rows.column("token"),
                                                             rows.column("token_invalid"), rows.column("widget_push_token"))
        (hideDetails, setsAttention) = try (rows.column("hide_details"), rows.column("sets_attention"))
        (webP256, webAuth, webType) = try (rows.column("web_p256"), rows.column("web_auth"), rows.column("web_type"))
    }
}

extension DeliveryContext.App {
    /// An app from a row with the `apps` columns every push reads (the id under `idColumn`), as
    /// the context load and a channel broadcast select them. `apns_certificate` is selected only
    /// for an app whose `apns_auth` is `certificate` (NULL otherwise): then it authenticates so.
    init(row: PostgresRow, idColumn: String = "id") throws {
        self.init(id: try row.decode(idColumn), bundleID: try row.decode("apns_bundle_id"),
                  watchBundleID: try row.decode("apns_watch_bundle_id"),
                  autoEndMinutes: try row.decode("live_activity_auto_end_minutes"),
                  onesignalAlias: try row.decode("onesignal_alias"), p8: try row.decode("apns_p8"),
                  keyID: try row.decode("apns_key_id"), teamID: try row.decode("apns_team_id"),
                  certificate: try row.decode("apns_certificate"), updatedAt: try row.decode("updated_at"))
    }
}
