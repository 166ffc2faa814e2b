import OpenPushCore
import OpenPushDelivery
import Postgres

/// Reading outcomes, and reporting a custom one: the device is found by its token and charged one slot of its
/// rate limit (committed on its own, so refused reports count too), then the report is added
/// to its hour in a second transaction.
enum OutcomeService {
    static let rateLimited = "too many outcome reports from this device: at most \(OutcomeLimits.reportsPerDevice) per \(Int(OutcomeLimits.reportWindow)) s"
    static let tooManyNames = "this app already recorded \(OutcomeLimits.namesPerAppHour) different outcome names this hour"

    static func report(_ report: OutcomeReport, app: AppRecord, deviceKey: String?, now: Double,
                       in database: PostgresPool) async throws {
        let limit = RateLimit(bucket: "outcomes", limit: OutcomeLimits.reportsPerDevice, window: OutcomeLimits.reportWindow)
        let (device, admitted) = try await database.transaction { connection in
            let device = try NativeDevice.find(app: app, token: report.token, deviceKey: deviceKey, in: connection)
            // Per device: one device cannot use up its app's reports.
            var perDevice = limit
            perDevice.bucket += "/" + device.subscriptionID
            return (device, try RateLimiter.admit(appID: app.id, perDevice, now: now, in: connection))
        }
        guard admitted else {
            throw APIError(status: 429, rateLimited, headers: ["Retry-After": String(Int(OutcomeLimits.reportWindow))])
        }
        let recorded = try await database.transaction { connection in
            try OutcomeStore.record(report, appID: app.id, subscriptionID: device.subscriptionID, now: now, in: connection)
        }
        switch recorded {
        case .recorded: return
        case .unknownNotification: throw APIError.notFound("notification '\(report.notificationID ?? "")' not found")
        case .tooManyNames: throw APIError(status: 429, tooManyNames)
        }
    }

    /// Each asked outcome's value, read on one connection (`OutcomeStore.values`).
    static func values(_ query: OutcomeQuery, appID: String, now: Double,
                       in database: PostgresPool) async throws -> [(OutcomeName, Int64)] {
        try await database.withConnection { try OutcomeStore.values(query, appID: appID, now: now, in: $0) }
    }
}
