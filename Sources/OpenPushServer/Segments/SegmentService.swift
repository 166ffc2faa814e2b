import OpenPushCore
import OpenPushDelivery
import Postgres

/// One segment of an app and how many devices a send to it reaches now, read in one
/// transaction through the send's own audience resolution (`AudienceResolver`,
/// `NotificationAudience`).
enum SegmentService {
    enum Found: Sendable {
        case builtIn(BuiltInSegment)
        case saved(SegmentRecord)

        var name: String {
            switch self {
            case .builtIn(let segment): segment.name
            case .saved(let record): record.name
            }
        }
    }

    /// Nil when the app has no segment with this id (another app's is not found either).
    static func detail(id: String, principal: RESTPrincipal, now: Double,
                       database: PostgresPool) async throws -> (segment: Found, reached: Int64)? {
        let appID = principal.app.id
        return try await database.transaction { connection -> (segment: Found, reached: Int64)? in
            let found: Found
            if let builtIn = BuiltInSegment(id: id, appID: appID) {
                found = .builtIn(builtIn)
            } else if let record = try SegmentStore.find(id: id, appID: appID, in: connection) {
                found = .saved(record)
            } else {
                return nil
            }
            let targeted = try AudienceResolver.targeted(.segments(included: [found.name], excluded: []), appID: appID,
                                                         tenantID: principal.tenantID, now: now, in: connection)
            return (found, try NotificationAudience.count(targeted: targeted, appID: appID, kind: .alert, in: connection))
        }
    }
}
