import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// The audit log (`GET /organizations/{organization_id}/audit_logs`): every administrative change
/// recorded once, with its actor and request id, in the change's own transaction; newest first,
/// paged by cursor, filtered; a year's retention; the organization key and id checked.
@Suite struct AuditLogTests {
    typealias Support = AppsTestSupport

    static func organizationID(_ app: TestApp) async throws -> String {
        let shown = await app.request(.get, "/apps", headers: Support.organization)
        let first = try #require(shown.json?.arrayValue?.first?.objectValue?["organization_id"]?.stringValue)
        return first
    }

    static func entries(_ app: TestApp, _ query: [String: String] = ["limit": "100"]) async throws -> [JSONObject] {
        let org = try await organizationID(app)
        let response = await app.request(.get, "/organizations/\(org)/audit_logs", headers: Support.organization, query: query)
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json?.objectValue?["audit_logs"]?.arrayValue).compactMap(\.objectValue)
    }

    static func actions(_ entries: [JSONObject], target: String) -> [String] {
        entries.filter { $0["targets"]?.arrayValue?.first?.objectValue?["id"]?.stringValue == target }
            .compactMap { $0["action"]?.stringValue }
    }

    @Test func everyAdministrativeChangeIsRecordedOnceWithItsActorAndRequest() async throws {
        let clock = ManualClock()
        let app = try await Support.makeApp(now: clock.source)
        let org = Support.organization
        func step() { clock.advance(by: 1) }
        let created = await app.request(.post, "/apps", headers: org, json: ["name": "Audited", "shared_demo": true])
        let appID = try #require(created.json?.objectValue?["id"]?.stringValue)
        let restKey = try #require(created.json?.objectValue?["basic_auth_key"]?.stringValue)
        step()
        #expect(await app.request(.put, "/apps/\(appID)", headers: org, json: ["name": "Renamed", "apns_key_id": "KEY1"]).status == 200)
        step()
        let key = await app.request(.post, "/apps/\(appID)/auth/tokens", headers: org, json: ["name": "k"])
        let keyID = try #require(key.json?.objectValue?["token_id"]?.stringValue)
        step()
        #expect(await app.request(.patch, "/apps/\(appID)/auth/tokens/\(keyID)", headers: org, json: ["name": "k2"]).status == 200)
        step()
        #expect(await app.request(.post, "/apps/\(appID)/auth/tokens/\(keyID)/rotate", headers: org).status == 200)
        step()
        #expect(await app.request(.delete, "/apps/\(appID)/auth/tokens/\(keyID)", headers: org).status == 200)
        step()
        #expect(await app.request(.post, "/apps/\(appID)/sdk_key/rotate", headers: org).status == 200)
        step()
        let hook = await app.request(.post, "/apps/\(appID)/webhooks", headers: .restKey(restKey),
                                     json: ["url": "https://hooks.example.com/a", "events": ["*"]])
        let hookID = try #require(hook.json?.objectValue?["id"]?.stringValue, "\(hook.text)")
        step()
        #expect(await app.request(.patch, "/apps/\(appID)/webhooks/\(hookID)", headers: .restKey(restKey),
                                  json: ["description": "d"]).status == 200)
        step()
        #expect(await app.request(.delete, "/apps/\(appID)/webhooks/\(hookID)", headers: .restKey(restKey)).status == 204)
        step()
        let tenant = await app.request(.post, "/apps/\(appID)/tenants", headers: org, json: ["name": "t"])
        let tenantID = try #require(tenant.json?.objectValue?["id"]?.stringValue, "\(tenant.text)")
        step()
        #expect(await app.request(.delete, "/apps/\(appID)/tenants/\(tenantID)", headers: org).status == 200)

        let entries = try await Self.entries(app, ["limit": "100", "app_ids": appID])
        #expect(entries.compactMap { $0["action"]?.stringValue } == [
            "tenant.deleted", "tenant.created", "webhook.deleted", "webhook.updated", "webhook.created", "sdk_key.rotated",
            "api_key.deleted", "api_key.rotated", "api_key.updated", "api_key.created", "app.updated", "credentials.updated",
            "app.created",
        ] || entries.compactMap { $0["action"]?.stringValue } == [
            "tenant.deleted", "tenant.created", "webhook.deleted", "webhook.updated", "webhook.created", "sdk_key.rotated",
            "api_key.deleted", "api_key.rotated", "api_key.updated", "api_key.created", "credentials.updated", "app.updated",
            "app.created",
        ])
        #expect(Set(AuditAction.allCases.map(\.rawValue)) == Set(entries.compactMap { $0["action"]?.stringValue }))
        #expect(Self.actions(entries, target: keyID) == ["api_key.deleted", "api_key.rotated", "api_key.updated", "api_key.created"])
        #expect(Self.actions(entries, target: hookID) == ["webhook.deleted", "webhook.updated", "webhook.created"])
        #expect(Self.actions(entries, target: tenantID) == ["tenant.deleted", "tenant.created"])
        let restKeyID = try #require(try await app.services.database.query(
            "SELECT id FROM api_keys WHERE app_id = \(appID) AND name = 'default'").first?.decode("id", as: String.self))
        for entry in entries {
            let action = entry["action"]?.stringValue ?? ""
            let actor = entry["actor"]?.objectValue
            if action.hasPrefix("webhook.") {
                #expect(actor == ["id": .string(restKeyID), "type": "api_key"], "\(action)")
            } else {
                #expect(actor == ["id": "org", "type": "organization_api_key"], "\(action)")
            }
            #expect(entry["app_id"] == .string(appID))
            let requestID = try #require(entry["request_id"]?.stringValue, "\(action) has no request id")
            #expect(entry["context"] == ["metadata": ["request_id": .string(requestID)]])
            for secret in [restKey, Support.organizationKey] { #expect(!entry.serializedText.contains(secret)) }
        }
        // Each request's entries carry its own id: only the PUT wrote two.
        let requestIDs = entries.compactMap { $0["request_id"]?.stringValue }
        #expect(Set(requestIDs).count == requestIDs.count - 1)
        let credentials = try #require(entries.first { $0["action"] == "credentials.updated" })
        #expect(credentials["metadata"] == ["fields": ["apns_key_id"]])
    }

    /// The entry is written in the change's transaction: a change that fails at commit leaves no
    /// entry, and an entry that cannot be written undoes the change.
    @Test func aChangeThatRollsBackLeavesNoEntry() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let appID = created.app.id
        let key = await app.request(.post, "/apps/\(appID)/auth/tokens", headers: Support.organization, json: ["name": "k"])
        let keyID = try #require(key.json?.objectValue?["token_id"]?.stringValue)
        let token = try #require(key.json?.objectValue?["formatted_token"]?.stringValue)
        // Every rotation of this app's keys fails when it commits, after its entry was written.
        try await app.seed("CREATE TABLE refused_apps (id text PRIMARY KEY)")
        try await app.seed("""
            CREATE FUNCTION refuse_rotation() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF EXISTS (SELECT 1 FROM refused_apps WHERE id = NEW.app_id) THEN RAISE EXCEPTION 'rotation refused'; END IF;
                RETURN NULL;
            END $$
            """)
        try await app.seed("""
            CREATE CONSTRAINT TRIGGER refuse_rotation AFTER UPDATE ON api_keys DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION refuse_rotation()
            """)
        try await app.seed("INSERT INTO refused_apps (id) VALUES (\(appID))")
        #expect(await app.request(.post, "/apps/\(appID)/auth/tokens/\(keyID)/rotate", headers: Support.organization).status == 500)
        #expect(await app.restKeyStatus(appID, token) == 200)
        // The other app is unaffected.
        let otherKeyID = other.restKeyID
        #expect(await app.request(.post, "/apps/\(other.app.id)/auth/tokens/\(otherKeyID)/rotate", headers: Support.organization).status == 200)
        let entries = try await Self.entries(app)
        #expect(Self.actions(entries, target: keyID) == ["api_key.created"])
        #expect(Self.actions(entries, target: otherKeyID) == ["api_key.rotated"])
        // And the other way round: when the entry cannot be written, the change is undone.
        try await app.seed("""
            CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'entry refused by the test'; END $$
            """)
        try await app.seed("""
            CREATE TRIGGER refuse_entry BEFORE INSERT ON audit_log FOR EACH ROW
            WHEN (NEW.action = 'api_key.deleted') EXECUTE FUNCTION refuse_entry()
            """)
        #expect(await app.request(.delete, "/apps/\(appID)/auth/tokens/\(keyID)", headers: Support.organization).status == 500)
        #expect(await app.restKeyStatus(appID, token) == 200)
    }

    /// Newest first; entries of one instant by the order they were written; pages of `limit`
    /// joined by `next_cursor` give every entry once; `limit` is clamped to 1–100.
    @Test func pagesFollowEachOtherNewestFirst() async throws {
        let clock = ManualClock()
        let app = try await Support.makeApp(now: clock.source)
        let created = try await app.createApp()
        var keyIDs: [String] = []
        for index in 0..<7 {
            // Two entries share each instant: the cursor must break the tie.
            if index % 2 == 0 { clock.advance(by: 1) }
            let key = await app.request(.post, "/apps/\(created.app.id)/auth/tokens", headers: Support.organization,
                                        json: ["name": .string("k\(index)")])
            keyIDs.append(try #require(key.json?.objectValue?["token_id"]?.stringValue))
        }
        let org = try await Self.organizationID(app)
        var seen: [String] = []
        var query = ["limit": "3", "actions": "api_key.created"]
        var pages = 0
        while true {
            let response = await app.request(.get, "/organizations/\(org)/audit_logs", headers: Support.organization, query: query)
            let body = try #require(response.json?.objectValue)
            let page = try #require(body["audit_logs"]?.arrayValue)
            #expect(page.count <= 3)
            seen += page.compactMap { $0.objectValue?["targets"]?.arrayValue?.first?.objectValue?["id"]?.stringValue }
            pages += 1
            guard body["has_more"] == true else {
                #expect(body["next_cursor"] == nil)
                break
            }
            query["cursor"] = try #require(body["next_cursor"]?.stringValue)
        }
        #expect(pages == 3)
        #expect(seen == keyIDs.reversed())
        let clamped = await app.request(.get, "/organizations/\(org)/audit_logs", headers: Support.organization,
                                        query: ["limit": "1000"])
        #expect(clamped.status == 200)
        let zero = await app.request(.get, "/organizations/\(org)/audit_logs", headers: Support.organization, query: ["limit": "0"])
        #expect(zero.json?.objectValue?["audit_logs"]?.arrayValue?.count == 1)
        let bad = await app.request(.get, "/organizations/\(org)/audit_logs", headers: Support.organization,
                                    query: ["cursor": "nonsense", "actions": "notification.sent"])
        #expect(bad.status == 400)
        #expect(bad.json?.objectValue?["errors"]?.arrayValue?.count == 2)
    }

    /// A time range, and the filters: app, action, actor, target.
    @Test func filtersNarrowTheList() async throws {
        let clock = ManualClock()
        let app = try await Support.makeApp(now: clock.source)
        let first = try await app.createApp()
        clock.advance(by: 60)
        let second = try await app.createApp()
        clock.advance(by: 60)
        let hook = await app.request(.post, "/apps/\(second.app.id)/webhooks", headers: .restKey(second.restKey),
                                     json: ["url": "https://hooks.example.com/a", "events": ["*"]])
        #expect(hook.status == 201)
        let onlyFirst = try await Self.entries(app, ["app_ids": first.app.id])
        #expect(onlyFirst.map { $0["app_id"] } == [.string(first.app.id)])
        let both = try await Self.entries(app, ["app_ids": "\(first.app.id),\(second.app.id)", "actions": "app.created"])
        #expect(both.map { $0["app_id"] } == [.string(second.app.id), .string(first.app.id)])
        let byKey = try await Self.entries(app, ["actor_ids": second.restKeyID])
        #expect(byKey.map { $0["action"] } == ["webhook.created"])
        let webhooks = try await Self.entries(app, ["target_types": "webhook"])
        #expect(webhooks.count == 1)
        let start = Timestamp.iso8601(clock.now() - 90)
        let end = Timestamp.iso8601(clock.now() - 30)
        let ranged = try await Self.entries(app, ["start_time": start, "end_time": end])
        #expect(ranged.map { $0["app_id"] } == [.string(second.app.id)])
    }

    @Test func entriesPastAYearAreDeletedByMaintenance() async throws {
        let clock = ManualClock()
        let app = try await Support.makeApp(now: clock.source)
        let old = try await app.createApp()
        clock.advance(by: Double(AuditRetention.days) * 86_400 - 60)
        let recent = try await app.createApp()
        clock.advance(by: 120)
        try await Maintenance.runOnce(app.services, now: clock.now())
        let entries = try await Self.entries(app)
        #expect(entries.map { $0["app_id"] } == [.string(recent.app.id)])
        #expect(!entries.contains { $0["app_id"] == .string(old.app.id) })
    }

    @Test func theOrganizationKeyAndIdAreChecked() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let org = try await Self.organizationID(app)
        #expect(org.hasPrefix("org_") && org.count == 36)
        let path = "/organizations/\(org)/audit_logs"
        #expect(await app.request(.get, path).status == 401)
        let rest = await app.request(.get, path, headers: .restKey(created.restKey))
        #expect(rest.status == 401)
        #expect(rest.json == ["errors": [.string(Authentication.badOrganizationKey)]])
        let unknown = await app.request(.get, "/organizations/org_unknown/audit_logs", headers: Support.organization)
        #expect(unknown.status == 404)
        #expect(unknown.json == ["errors": ["unknown organization 'org_unknown'"]])
        #expect(await app.request(.get, path, headers: Support.organization).status == 200)
    }
}

extension JSONObject {
    var serializedText: String { JSONValue.object(self).serialized }
}
