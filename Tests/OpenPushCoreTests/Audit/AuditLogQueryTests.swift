import Testing
import OpenPushCore

/// `list_audit_logs`' query, read without a database: lists repeated or comma-separated, OneSignal's
/// bounds, `limit` clamped, times and cursors checked, the filters OpenPush cannot apply refused.
@Suite struct AuditLogQueryTests {
    @Test func listsArriveRepeatedOrCommaSeparated() throws {
        let query = try AuditLogQuery.read([
            "app_ids": ["app_a", "app_b,app_c"], "actions": ["api_key.rotated", "tenant.created"],
            "actor_ids": ["org"], "target_types": ["webhook"], "target_ids": ["whk_1"],
        ])
        #expect(query.appIDs == ["app_a", "app_b", "app_c"])
        #expect(query.actions == [.apiKeyRotated, .tenantCreated])
        #expect(query.actorIDs == ["org"] && query.targetTypes == [.webhook] && query.targetIDs == ["whk_1"])
        #expect(query.limit == AuditLogQuery.defaultLimit && query.cursor == nil)
    }

    @Test func limitIsClampedAsOneSignalDocuments() throws {
        #expect(try AuditLogQuery.read(["limit": ["0"]]).limit == 1)
        #expect(try AuditLogQuery.read(["limit": ["500"]]).limit == 100)
        #expect(try AuditLogQuery.read(["limit": ["7"]]).limit == 7)
        #expect(throws: InvalidInput(["limit must be an integer"])) { try AuditLogQuery.read(["limit": ["many"]]) }
    }

    @Test func everyProblemIsNamedAtOnce() {
        #expect(throws: InvalidInput([
            "end_time must be after start_time",
            "app_ids accepts at most 10 values",
            "actions: unknown action 'notification.sent'; OpenPush records "
                + AuditAction.allCases.map(\.rawValue).joined(separator: ", "),
            "actor_emails is not supported: OpenPush's actors are keys, which have no email (filter by actor_ids)",
            "ip_addresses is not supported: OpenPush does not record the caller's address",
        ])) {
            try AuditLogQuery.read([
                "start_time": ["2026-02-02T00:00:00Z"], "end_time": ["2026-02-01T00:00:00Z"],
                "app_ids": [(1...11).map { "app_\($0)" }.joined(separator: ",")], "actions": ["notification.sent"],
                "actor_emails": ["a@example.com"], "ip_addresses": ["10.0.0.1"],
            ])
        }
        #expect(throws: InvalidInput(["start_time must be an ISO 8601 time such as 2026-02-01T00:00:00Z"])) {
            try AuditLogQuery.read(["start_time": ["yesterday"]])
        }
    }

    /// A cursor carries the range's start; the times beside it are ignored, as OneSignal documents.
    @Test func aCursorCarriesItsStartAndReplacesTheTimes() throws {
        let cursor = AuditCursor(occurredMicros: 1_764_999_999_123_000, position: 42, startMicros: 1_764_000_000_000_000)
        #expect(AuditCursor(text: cursor.text) == cursor)
        #expect(AuditCursor(text: "1.2") == AuditCursor(occurredMicros: 1, position: 2, startMicros: nil))
        for bad in ["", "x.1", "1", "1.0", "1.2.3.4", "1.2.x"] { #expect(AuditCursor(text: bad) == nil, "\(bad)") }
        let query = try AuditLogQuery.read(["cursor": [cursor.text], "start_time": ["2100-01-01T00:00:00Z"], "end_time": ["bad"]])
        #expect(query.cursor == cursor && query.startTime == nil && query.endTime == nil)
        #expect(query.startMicros == 1_764_000_000_000_000)
        let started = try AuditLogQuery.read(["start_time": ["2026-02-01T00:00:00.5Z"]])
        #expect(started.startMicros == 1_769_904_000_500_000)
    }

    @Test func everyActionHasItsTargetKind() {
        #expect(AuditAction.allCases.count == 13)
        #expect(AuditAction.sdkKeyRotated.targetType == .app && AuditAction.credentialsUpdated.targetType == .app)
        #expect(AuditAction.apiKeyRotated.targetType == .apiKey && AuditAction.tenantDeleted.targetType == .tenant)
        #expect(AuditActor.organizationKey.id == "org" && AuditActor.apiKey(id: "key_1").id == "key_1")
        #expect(AuditRetention.cutoff(now: 400 * 86_400) == 35 * 86_400)
    }
}
