import OpenPushCore
import OpenPushDelivery
import Postgres

/// Outcomes: custom ones added up per hour in `outcome_hours` (migration 0052), OneSignal's
/// own read from what OpenPush records anyway. Every statement names the app.
enum OutcomeStore {
    enum Recorded: Sendable, Equatable {
        case recorded
        case unknownNotification
        /// The app already has `OutcomeLimits.namesPerAppHour` other names this hour.
        case tooManyNames
    }

    /// Adds one report to its hour. A notification id must be one of the app's messages.
    static func record(_ report: OutcomeReport, appID: String, subscriptionID: String, now: Double,
                       in connection: PostgresConnection) throws -> Recorded {
        if let messageID = report.notificationID {
            let found = try connection.query("SELECT 1 FROM messages WHERE id = \(messageID) AND app_id = \(appID)")
            if found.isEmpty { return .unknownNotification }
        }
        let hour = (now / 3600).rounded(.down) * 3600
        let known: PostgresQuery = """
            SELECT EXISTS (SELECT 1 FROM outcome_hours
                           WHERE app_id = \(appID) AND hour = to_timestamp(\(hour)) AND name = \(report.name)) AS known
            """
        if try connection.query(known)[0].decode("known", as: Bool.self) == false {
            // New names of an app's hour are counted one at a time, so the bound holds under concurrency.
            try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\("outcomes/" + appID), 0))")
            let names: Int = try connection.query("""
                SELECT count(DISTINCT name)::int AS names FROM outcome_hours
                WHERE app_id = \(appID) AND hour = to_timestamp(\(hour)) AND name <> \(report.name)
                """)[0].decode("names")
            if names >= OutcomeLimits.namesPerAppHour { return .tooManyNames }
        }
        try connection.query("""
            INSERT INTO outcome_hours (app_id, hour, name, platform, attribution, count, sum)
            SELECT \(appID), to_timestamp(\(hour)), \(report.name), s.platform, \(report.attribution.rawValue), 1, \(report.value)
            FROM subscriptions s WHERE s.id = \(subscriptionID) AND s.app_id = \(appID)
            ON CONFLICT (app_id, hour, name, platform, attribution) DO UPDATE
            SET count = outcome_hours.count + 1, sum = outcome_hours.sum + EXCLUDED.sum
            """)
        return .recorded
    }

    /// Each asked name's value, in the order asked; a name with no records is 0.
    static func values(_ query: OutcomeQuery, appID: String, now: Double,
                       in connection: PostgresConnection) throws -> [(OutcomeName, Int64)] {
        let start = query.windowStart(now: now)
        let custom = query.names.filter { OutcomeQuery.BuiltIn(rawValue: $0.name) == nil }.map(\.name)
        var totals: [String: (count: Int64, sum: Int64)] = [:]
        if !custom.isEmpty {
            let attributions = OutcomeQuery.RecordedAttribution.allCases.filter { $0.matches(query.attribution) }.map(\.rawValue)
            var statement: PostgresQuery = """
                SELECT name, sum(count)::int8 AS count, sum(sum)::int8 AS sum FROM outcome_hours
                WHERE app_id = \(appID) AND hour >= to_timestamp(\(query.firstHour(now: now)))
                  AND name = ANY(\(custom)::text[]) AND attribution = ANY(\(attributions)::text[])
                """
            if let platforms = query.platforms { statement.append(" AND platform = ANY(\(platforms)::text[])") }
            statement.append(" GROUP BY name")
            for row in try connection.query(statement) {
                totals[try row.decode("name")] = (try row.decode("count"), try row.decode("sum"))
            }
        }
        return try query.names.map { name in
            switch OutcomeQuery.BuiltIn(rawValue: name.name) {
            case .click?:
                return (name, query.attribution.includes(.direct)
                    ? try clicks(appID: appID, since: start, platforms: query.platforms, in: connection) : 0)
            case .sessionCount?:
                return (name, query.attribution.includes(.unattributed)
                    ? try sessions(appID: appID, since: start, platforms: query.platforms, in: connection) : 0)
            case nil:
                let total = totals[name.name] ?? (0, 0)
                return (name, name.aggregation == .count ? total.count : total.sum)
            }
        }
    }

    /// First taps (`delivery_clicks`, one per device and message) made in the window, on the
    /// app's messages (found through `messages_by_app`, each message's taps by its key).
    static func clicks(appID: String, since start: Double, platforms: [String]?,
                       in connection: PostgresConnection) throws -> Int64 {
        var statement: PostgresQuery = """
            SELECT count(*)::int8 AS n FROM messages m
            JOIN delivery_clicks c ON c.message_id = m.id
            JOIN subscriptions s ON s.id = c.subscription_id
            WHERE m.app_id = \(appID) AND c.clicked_at >= to_timestamp(\(start))
            """
        if let platforms { statement.append(" AND s.platform = ANY(\(platforms)::text[])") }
        return try connection.query(statement)[0].decode("n")
    }

    /// Sessions as OpenPush counts them: a registration is a session. Only each device's latest
    /// one has a time, so this counts the devices with a session in the window.
    static func sessions(appID: String, since start: Double, platforms: [String]?,
                         in connection: PostgresConnection) throws -> Int64 {
        var statement: PostgresQuery = """
            SELECT count(*)::int8 AS n FROM subscriptions s
            WHERE s.app_id = \(appID) AND s.last_session_at >= to_timestamp(\(start))
            """
        if let platforms { statement.append(" AND s.platform = ANY(\(platforms)::text[])") }
        return try connection.query(statement)[0].decode("n")
    }
}
