import OpenPushCore
import OpenPushDelivery
import Postgres

/// How many devices a send body reaches now (`POST /notifications/count-unsaved`): the body
/// is joined with its template and validated as `NotificationSendService.create` does, and its
/// audience resolved by the send's own `AudienceResolver` and `NotificationAudience`, in a
/// read-only transaction: nothing is stored.
enum NotificationEstimateService {
    static func count(body: JSONObject, principal: RESTPrincipal, now: Double, database: PostgresPool) async throws -> Int64 {
        let appID = principal.app.id
        let request = try await TemplateStore.applied(to: body, appID: appID, in: database)
        let estimate = try NotificationEstimateParser.parse(request).get()
        return try await database.transaction { connection -> Int64 in
            try connection.query("SET TRANSACTION READ ONLY")
            // Resolved first, so a refusal (an unknown segment, another tenant's device) is the send's.
            let targeted = try AudienceResolver.targeted(estimate.targeting, appID: appID, tenantID: principal.tenantID,
                                                         now: now, in: connection)
            return try NotificationAudience.count(targeted: targeted, appID: appID, kind: estimate.kind,
                                                  excluding: estimate.excludedServices, browsers: estimate.excludedBrowsers, in: connection)
        }
    }
}
