import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// The reporting routes with a shared demo tenant's REST key: estimates and segment counts
/// reach only the tenant's linked devices, as its sends do; app-wide outcomes and segment
/// changes are the app's own.
@Suite struct ReportingTenantTests {
    @Test func aTenantCountsOnlyItsOwnDevicesAndCannotReadOrChangeTheAppsFigures() async throws {
        let w = try await TenantsIsolationTests.World.make()
        let estimate = { (key: String, targeting: JSONObject) async -> TestResponse in
            var body = targeting
            body["app_id"] = .string(w.appID)
            return await w.app.send(.post, "/notifications/count-unsaved", headers: .restKey(key), json: .object(body))
        }
        let everyone: JSONObject = ["included_segments": ["Subscribed Users"]]
        #expect(await estimate(w.acme.restKey, everyone).json?.objectValue?["count"] == 1)
        #expect(await estimate(w.demo.shared.restKey, everyone).json?.objectValue?["count"] == 3)
        let theirs = await estimate(w.acme.restKey, ["include_player_ids": [.string(w.globexDevice.subscriptionID)]])
        #expect(theirs.status == 403)
        #expect(theirs.json == TenantsIsolationTests.forbidden(
            "subscription '\(w.globexDevice.subscriptionID)' belongs to another tenant of this app"))

        let segment = "/segments/\(BuiltInSegment.subscribedUsers.id(appID: w.appID))"
        #expect(await w.rest(.get, segment, key: w.acme.restKey).json?.objectValue?["subscriber_count"] == 1)
        let created = await w.rest(.post, "/segments", key: w.demo.shared.restKey,
                                   ["name": "English", "filters": [["field": "language", "relation": "=", "value": "en"]]])
        let id = try #require(created.json?.objectValue?["id"]?.stringValue)
        let patched = await w.rest(.patch, "/segments/\(id)", key: w.acme.restKey, ["name": "Mine"])
        #expect(patched.status == 403)
        #expect(patched.json == TenantsIsolationTests.forbidden(
            "a tenant's key cannot change segments: they are shared by every tenant of this app"))

        let outcomes = await w.app.request(.get, "/apps/\(w.appID)/outcomes", headers: .restKey(w.acme.restKey),
                                           query: ["outcome_names": "os__click.count"])
        #expect(outcomes.status == 403)
        #expect(outcomes.json == TenantsIsolationTests.forbidden(
            "a tenant's key cannot read outcomes: they are shared by every tenant of this app"))
    }
}
