/// The query of `GET /organizations/{organization_id}/audit_logs`, read and checked: OneSignal's
/// parameters (`list_audit_logs`), each list given as repeated names (`app_ids=a&app_ids=b`, as
/// its client sends them) or comma-separated. `limit` outside 1–100 is clamped, as OneSignal
/// documents; a list longer than OneSignal's bound is refused.
package struct AuditLogQuery: Sendable, Equatable {
    package static let defaultLimit = 50
    package static let limits: ClosedRange<Int> = 1...100
    /// OneSignal's bounds on the lists (its client checks them too).
    package static let maxAppIDs = 10
    package static let maxActions = 20
    package static let maxActorIDs = 10
    package static let maxTargets = 10

    package var limit = defaultLimit
    package var cursor: AuditCursor?
    /// Unix seconds, inclusive start and exclusive end.
    package var startTime: Double?
    package var endTime: Double?
    package var appIDs: [String] = []
    package var actions: [AuditAction] = []
    package var actorIDs: [String] = []
    package var targetTypes: [AuditTargetType] = []
    package var targetIDs: [String] = []

    package init() {}

    /// The start of the range as microseconds: the cursor's when there is one.
    package var startMicros: Int64? {
        if let cursor { return cursor.startMicros }
        return startTime.map { Int64(($0 * 1_000_000).rounded()) }
    }

    /// Every problem at once.
    package static func read(_ values: [String: [String]]) throws(InvalidInput) -> AuditLogQuery {
        var query = AuditLogQuery()
        var problems: [String] = []
        func list(_ name: String, max: Int) -> [String] {
            let items = (values[name] ?? []).flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }
            if items.count > max { problems.append("\(name) accepts at most \(max) values") }
            return Array(items.prefix(max))
        }
        if let text = values["limit"]?.last {
            if let limit = Int(text) {
                query.limit = Swift.min(Swift.max(limit, limits.lowerBound), limits.upperBound)
            } else {
                problems.append("limit must be an integer")
            }
        }
        if let text = values["cursor"]?.last, !text.isEmpty {
            query.cursor = AuditCursor(text: text)
            if query.cursor == nil { problems.append("cursor is not one this server returned as next_cursor") }
        }
        // A cursor carries its range, so the times beside it are ignored, as OneSignal documents.
        if query.cursor == nil {
            query.startTime = time("start_time", values, &problems)
            query.endTime = time("end_time", values, &problems)
            if let start = query.startTime, let end = query.endTime, end <= start {
                problems.append("end_time must be after start_time")
            }
        }
        query.appIDs = list("app_ids", max: maxAppIDs)
        query.actorIDs = list("actor_ids", max: maxActorIDs)
        query.targetIDs = list("target_ids", max: maxTargets)
        for name in list("actions", max: maxActions) {
            if let action = AuditAction(rawValue: name) {
                query.actions.append(action)
            } else {
                problems.append("actions: unknown action '\(name)'; OpenPush records "
                    + AuditAction.allCases.map(\.rawValue).joined(separator: ", "))
            }
        }
        for name in list("target_types", max: maxTargets) {
            if let type = AuditTargetType(rawValue: name) {
                query.targetTypes.append(type)
            } else {
                problems.append("target_types: unknown type '\(name)'; OpenPush's targets are "
                    + AuditTargetType.allCases.map(\.rawValue).joined(separator: ", "))
            }
        }
        if !list("actor_emails", max: maxActorIDs).isEmpty {
            problems.append("actor_emails is not supported: OpenPush's actors are keys, which have no email (filter by actor_ids)")
        }
        if !list("ip_addresses", max: maxActorIDs).isEmpty {
            problems.append("ip_addresses is not supported: OpenPush does not record the caller's address")
        }
        if !problems.isEmpty { throw InvalidInput(problems) }
        return query
    }

    private static func time(_ name: String, _ values: [String: [String]], _ problems: inout [String]) -> Double? {
        guard let text = values[name]?.last, !text.isEmpty else { return nil }
        guard let seconds = SendAfterDate.unixSeconds(text) else {
            problems.append("\(name) must be an ISO 8601 time such as 2026-02-01T00:00:00Z")
            return nil
        }
        return seconds
    }
}
