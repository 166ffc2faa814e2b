package import OpenPushCore
package import Postgres

/// Who a notification reaches: the targeted subscriptions (reachable and the tenant's own, see
/// `AudienceResolver`) that hold a live token of the kind it needs: the device token, unless
/// its push service called it dead, or the widget push token for a widget reload; and of a push
/// service and browser the sender did not leave out (`isIos`/`isAndroid`/`isAnyWeb: false`, a
/// browser's own flag `false`). A push to an
/// extra token kind (VoIP and the like) reaches every targeted device: its token of the kind is
/// read when the job runs, and a device without one is counted (`SuppressionReason.noToken`).
package enum NotificationAudience {
    /// A query yielding `id` and `token`, with ids above `after` only, in id order.
    ///
    /// Segments and filters are a condition on the rows the page reads: as a subquery joined
    /// back to `subscriptions`, each page read the table twice and merged the two (a fifth of a
    /// 4,000-device page). Named devices are such a subquery; the cursor bounds it too:
    /// PostgreSQL does not carry `s.id > cursor` across the `IN`, and without it every page of a
    /// fan-out would read the targeted ids from the first one again (quadratic time).
    static func recipients(targeted: TargetedAudience, appID: String, kind: NotificationKind, excluding excluded: Set<PushService> = [],
                           browsers: Set<WebPushBrowser> = [], after cursor: String?) -> PostgresQuery {
        let token: PostgresQuery = kind == .widgets ? "s.widget_push_token" : "s.token"
        let live: PostgresQuery = switch kind {
        case .alert, .background: "s.token_invalid_at IS NULL"
        case .widgets: "s.widget_push_token IS NOT NULL"
        case .voip, .location, .pushToTalk, .complication, .fileProvider: "true"
        }
        let chosen: PostgresQuery
        switch targeted {
        case .matching(let condition):
            chosen = "(" + condition + ")"
        case .ids(let query):
            chosen = "s.id IN (SELECT t.id FROM (\(query)) AS t WHERE t.id > \(cursor ?? ""))"
        }
        return """
            SELECT s.id, \(token) AS token FROM subscriptions s
            WHERE s.app_id = \(appID) AND \(chosen) AND \(live)\(services(excluding: excluded))\(webTypes(excluding: browsers)) AND s.id > \(cursor ?? "")
            ORDER BY s.id
            """
    }

    /// The platform condition of the services left out; nothing when none is, so the everyday
    /// query is unchanged.
    static func services(excluding excluded: Set<PushService>) -> PostgresQuery {
        guard !excluded.isEmpty else { return "" }
        let kept = PushService.allCases.filter { !excluded.contains($0) }
        guard !kept.isEmpty else { return " AND false" }
        // Each service by its platforms: Apple's are every platform but Android's and the web's.
        let conditions: [PostgresQuery] = kept.map { service in
            switch service {
            case .apns: "s.platform NOT IN ('android', 'web')"
            case .fcm: "s.platform = 'android'"
            case .webPush: "s.platform = 'web'"
            }
        }
        return " AND (" + conditions.joined(separator: " OR ") + ")"
    }

    /// The browsers left out (`isChromeWeb: false` and the like), by their subscriptions'
    /// OneSignal type; nothing when none is.
    static func webTypes(excluding browsers: Set<WebPushBrowser>) -> PostgresQuery {
        guard !browsers.isEmpty else { return "" }
        let types = browsers.map(\.oneSignalType).sorted()
        return " AND (s.platform <> 'web' OR s.web_type <> ALL(\(types)::text[]))"
    }

    package static func isEmpty(targeted: TargetedAudience, appID: String, kind: NotificationKind,
                                excluding excluded: Set<PushService>, browsers: Set<WebPushBrowser> = [],
                                in connection: PostgresConnection) throws -> Bool {
        let audience = recipients(targeted: targeted, appID: appID, kind: kind, excluding: excluded, browsers: browsers, after: nil)
        return try connection.query("SELECT EXISTS (\(audience) LIMIT 1) AS any")[0].decode("any", as: Bool.self) == false
    }

    /// How many devices the audience holds now: what a send would queue (an estimate's answer).
    package static func count(targeted: TargetedAudience, appID: String, kind: NotificationKind,
                              excluding excluded: Set<PushService> = [], browsers: Set<WebPushBrowser> = [],
                              in connection: PostgresConnection) throws -> Int64 {
        let audience = recipients(targeted: targeted, appID: appID, kind: kind, excluding: excluded, browsers: browsers, after: nil)
        return try connection.query("SELECT count(*)::int8 AS n FROM (\(audience)) AS a")[0].decode("n")
    }
}
