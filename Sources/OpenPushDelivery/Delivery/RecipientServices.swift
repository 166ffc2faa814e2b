import OpenPushCore
import Postgres

/// The push services of a job's recipients, read from their subscriptions' platforms, for a
/// writer that has not planned them (a message failing as a whole): `/metrics` counts each
/// under its own service.
enum RecipientServices {
    /// Recipients per push service; one whose subscription is gone counts as `apns`.
    static func count(_ recipients: [DeliveryJob.Recipient], in connection: PostgresConnection) throws -> [PushService: Int] {
        guard !recipients.isEmpty else { return [:] }
        var counts: [PushService: Int] = [:]
        for row in try connection.query("""
            SELECT s.platform, count(*)::int8 AS n
            FROM unnest(\(recipients.map(\.subscriptionID))::text[]) AS r(id) LEFT JOIN subscriptions s ON s.id = r.id
            GROUP BY s.platform
            """) {
            let platform: String? = try row.decode("platform")
            counts[PushService(platform: platform ?? ""), default: 0] += Int(try row.decode("n", as: Int64.self))
        }
        return counts
    }
}
