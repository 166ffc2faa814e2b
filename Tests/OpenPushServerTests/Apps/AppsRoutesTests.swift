import Foundation
import Synchronization
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// `POST/GET/PUT /apps…` with the organization key.
@Suite struct AppsRoutesTests {
    typealias Support = AppsTestSupport

    /// The clock every test here runs on: 2026-11-30T07:00:00Z, moved by hand.
    final class Clock: Sendable {
        private let seconds = Mutex(1_796_022_000.0)
        var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
        func advance(_ interval: Double) { seconds.withLock { $0 += interval } }
    }

    @Test func createReturnsTheAppAndItsKeysOnce() async throws {
        let clock = Clock()
        let app = try await Support.makeApp(now: clock.now)
        let pem = try await Support.p256KeyPEM()
        let response = await app.request(.post, "/apps", headers: Support.organization, json: [
            "name": "Shop", "apns_env": "sandbox", "apns_p8": .string(pem), "apns_key_id": "ABC123DEFG",
            "apns_team_id": "TEAM123456", "apns_bundle_id": "com.example.shop", "apns_watch_bundle_id": "com.example.shop.watch",
            "shared_demo": false, "live_activity_auto_end_minutes": 30, "onesignal_alias": true,
        ])
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try #require(response.json?.objectValue)
        let id = try #require(body["id"]?.stringValue)
        #expect(Identifier.isWellFormed(id, prefix: "app"))
        let restKey = try #require(body["basic_auth_key"]?.stringValue)
        let sdkKey = try #require(body["sdk_key"]?.stringValue)
        let organizationID = try #require(body["organization_id"]?.stringValue)
        #expect(organizationID.hasPrefix("org_"))
        let vapidKey = try #require(body["web_push_vapid_public_key"]?.stringValue)
        #expect(vapidKey.count == 87)
        #expect(body == [
            "id": .string(id), "name": "Shop", "apns_env": "sandbox", "apns_key_id": "ABC123DEFG", "apns_team_id": "TEAM123456",
            "apns_bundle_id": "com.example.shop", "apns_watch_bundle_id": "com.example.shop.watch", "has_apns_key": true,
            "apns_auth": "token", "apns_certificate_expires_at": nil, "apns_certificate_topics": nil,
            "has_fcm_credentials": false, "fcm_project_id": nil, "shared_demo": false, "live_activity_auto_end_minutes": 30, "onesignal_alias": true,
            "dedupe_window_days": 30, "stale_alert_seconds": 0, "default_privacy_text": "New notification",
            "live_activity_update_interval_seconds": 5, "widget_push_interval_seconds": 15,
            "created_at": "2026-11-30T07:00:00.000Z", "updated_at": "2026-11-30T07:00:00.000Z",
            "apns_status": ["state": "ok", "reason": nil, "at": nil], "organization_id": .string(organizationID),
            "web_push_vapid_public_key": .string(vapidKey), "web_push_subject": nil,
            "basic_auth_key": .string(restKey), "sdk_key": .string(sdkKey),
        ])
        #expect(!response.text.contains("PRIVATE KEY"))
        // The keys open the app; the key is stored.
        #expect(await app.restKeyStatus(id, restKey) == 200)
        #expect(await app.sdkKeyStatus(id, sdkKey) == 200)
        let stored = try await app.services.database.query("SELECT apns_p8 FROM apps WHERE id = \(id)")
        #expect(try stored[0].decode("apns_p8", as: String.self) == pem)
        // Reading it back shows neither the key nor the secrets.
        let read = await app.request(.get, "/apps/\(id)", headers: Support.organization)
        var expected = body
        expected["basic_auth_key"] = nil
        expected["sdk_key"] = nil
        #expect(read.json == .object(expected))
        #expect(!read.text.contains("PRIVATE KEY") && !read.text.contains(restKey) && !read.text.contains(sdkKey))
    }

    @Test func createWithOnlyANameTakesTheDefaults() async throws {
        let app = try await Support.makeApp()
        let body = try #require(await app.request(.post, "/apps", headers: Support.organization, json: ["name": "Bare"]).json?.objectValue)
        #expect(body["apns_env"] == "production")
        #expect(body["has_apns_key"] == false && body["shared_demo"] == false && body["onesignal_alias"] == false)
        for field in ["apns_key_id", "apns_team_id", "apns_bundle_id", "apns_watch_bundle_id", "live_activity_auto_end_minutes"] {
            #expect(body[field] == .null, "\(field)")
        }
    }

    @Test func aKeyThatIsNotP256IsRefusedNamingTheField() async throws {
        let app = try await Support.makeApp()
        let rsa = try await Support.privateKeyPEM(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        let p384 = try await Support.privateKeyPEM(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        let created = try await app.createApp()
        for pem in [rsa, p384, "not a key", String(try await Support.p256KeyPEM().dropLast(40))] {
            let create = await app.request(.post, "/apps", headers: Support.organization, json: ["name": "X", "apns_p8": .string(pem)])
            #expect(create.status == 400)
            #expect(create.json == ["errors": [.string(AppFields.badAPNSKey)]])
            let update = await app.request(.put, "/apps/\(created.app.id)", headers: Support.organization, json: ["apns_p8": .string(pem)])
            #expect(update.status == 400)
            #expect(update.json == ["errors": [.string(AppFields.badAPNSKey)]])
        }
        let count = try await app.services.database.query("SELECT count(*)::int8 AS n FROM apps")
        #expect(try count[0].decode("n", as: Int.self) == 1)
    }

    @Test func everyBadFieldIsNamedInOne400() async throws {
        let app = try await Support.makeApp()
        let response = await app.request(.post, "/apps", headers: Support.organization, json: [
            "name": .string(String(repeating: "n", count: 129)), "apns_env": "staging", "shared_demo": "yes",
            "onesignal_alias": nil, "live_activity_auto_end_minutes": 0, "apns_bundle_id": 5, "extra": true,
        ])
        #expect(response.status == 400)
        #expect(response.json == ["errors": [
            "name must be 128 characters or fewer", "apns_env must be one of: sandbox, production",
            "shared_demo must be a boolean, got string", "apns_bundle_id must be a string, got number",
            "live_activity_auto_end_minutes must be an integer from 1 to 120", "unknown field 'extra'",
        ]])
        #expect(await app.request(.post, "/apps", headers: Support.organization, json: [:]).json == ["errors": ["name is required"]])
        #expect(await app.request(.post, "/apps", headers: Support.organization, json: ["name": 1, "apns_env": "moon"]).status == 400)
        let notAnObject = await app.request(.post, "/apps", headers: Support.organization, json: ["a", "b"])
        #expect(notAnObject.json == ["errors": ["the request body must be a JSON object"]])
        for minutes: JSONValue in [121, 1.5, "30"] {
            let bad = await app.request(.post, "/apps", headers: Support.organization,
                                        json: ["name": "X", "live_activity_auto_end_minutes": minutes])
            #expect(bad.json == ["errors": ["live_activity_auto_end_minutes must be an integer from 1 to 120"]])
        }
    }

    @Test func updateChangesOnlyWhatIsGivenClearsNullsAndBumpsUpdatedAt() async throws {
        let clock = Clock()
        let app = try await Support.makeApp(now: clock.now)
        let pem = try await Support.p256KeyPEM()
        let created = await app.request(.post, "/apps", headers: Support.organization, json: [
            "name": "Shop", "apns_p8": .string(pem), "apns_key_id": "KEY", "apns_team_id": "TEAM",
            "apns_bundle_id": "com.example.shop", "live_activity_auto_end_minutes": 30,
        ]).json?.objectValue
        let id = try #require(created?["id"]?.stringValue)
        clock.advance(90.25)

        let renamed = await app.request(.put, "/apps/\(id)", headers: Support.organization,
                                        json: ["name": "Shop 2", "apns_env": "sandbox", "shared_demo": true, "onesignal_alias": true])
        #expect(renamed.status == 200)
        let body = try #require(renamed.json?.objectValue)
        #expect(body["name"] == "Shop 2" && body["apns_env"] == "sandbox" && body["shared_demo"] == true && body["onesignal_alias"] == true)
        #expect(body["apns_key_id"] == "KEY" && body["apns_bundle_id"] == "com.example.shop" && body["has_apns_key"] == true)
        #expect(body["live_activity_auto_end_minutes"] == 30)
        #expect(body["created_at"] == "2026-11-30T07:00:00.000Z" && body["updated_at"] == "2026-11-30T07:01:30.250Z")
        #expect(!renamed.text.contains("PRIVATE KEY"))

        let cleared = await app.request(.put, "/apps/\(id)", headers: Support.organization,
                                        json: ["apns_p8": nil, "apns_key_id": nil, "live_activity_auto_end_minutes": nil])
        let after = try #require(cleared.json?.objectValue)
        #expect(after["has_apns_key"] == false && after["apns_key_id"] == .null && after["live_activity_auto_end_minutes"] == .null)
        #expect(after["apns_team_id"] == "TEAM" && after["name"] == "Shop 2")
        #expect(await app.request(.get, "/apps/\(id)", headers: Support.organization).json == cleared.json)

        // A new key through PUT is checked and stored like one given on creation.
        let rekeyed = await app.request(.put, "/apps/\(id)", headers: Support.organization, json: ["apns_p8": .string(pem)])
        #expect(rekeyed.json?.objectValue?["has_apns_key"] == true)
        // An empty update still answers the app.
        #expect(await app.request(.put, "/apps/\(id)", headers: Support.organization, json: [:]).status == 200)
    }

    @Test func updateValidatesLikeCreate() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let response = await app.request(.put, "/apps/\(created.app.id)", headers: Support.organization, json: [
            "name": nil, "apns_env": "staging", "apns_bundle_id": "", "live_activity_auto_end_minutes": 500, "sdk_key": "x",
        ])
        #expect(response.status == 400)
        #expect(response.json == ["errors": [
            "name cannot be null", "apns_env must be one of: sandbox, production",
            "apns_bundle_id must not be blank (send null to clear it)",
            "live_activity_auto_end_minutes must be an integer from 1 to 120", "unknown field 'sdk_key'",
        ]])
        #expect(try await AppStore.find(created.app.id, in: app.services.database) == created.app)
    }

    @Test func listIsNewestFirstWithLimitAndOffset() async throws {
        let clock = Clock()
        let app = try await Support.makeApp(now: clock.now)
        var ids: [String] = []
        for index in 0..<3 {
            let body = await app.request(.post, "/apps", headers: Support.organization, json: ["name": .string("App \(index)")]).json
            ids.append(try #require(body?.objectValue?["id"]?.stringValue))
            clock.advance(1)
        }
        let all = await app.request(.get, "/apps", headers: Support.organization)
        #expect(all.status == 200)
        #expect(all.headers["X-Total-Count"] == "3")
        let listed = try #require(all.json?.arrayValue)
        #expect(listed.map { $0.objectValue?["id"] } == ids.reversed().map { .string($0) })
        #expect(listed.first == (await app.request(.get, "/apps/\(ids[2])", headers: Support.organization)).json)
        #expect(!all.text.contains("basic_auth_key") && !all.text.contains("sdk_key"))

        let page = await app.request(.get, "/apps", headers: Support.organization, query: ["limit": "1", "offset": "1"])
        #expect(page.json?.arrayValue?.map { $0.objectValue?["id"] } == [.string(ids[1])])
        let beyond = await app.request(.get, "/apps", headers: Support.organization, query: ["offset": "10"])
        #expect(beyond.json == [] && beyond.headers["X-Total-Count"] == "3")
        let bad = await app.request(.get, "/apps", headers: Support.organization, query: ["limit": "0", "offset": "x"])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": ["limit must be an integer from 1 to 100", "offset must be an integer of 0 or more"]])
    }

    @Test func unknownAppIs404() async throws {
        let app = try await Support.makeApp()
        let read = await app.request(.get, "/apps/app_nothere", headers: Support.organization)
        let update = await app.request(.put, "/apps/app_nothere", headers: Support.organization, json: ["name": "X"])
        for response in [read, update] {
            #expect(response.status == 404)
            #expect(response.json == ["errors": ["unknown app 'app_nothere'"]])
        }
    }

    @Test func appKeysDoNotOpenTheAppsRoutes() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        for headers: HTTPHeaders in [.restKey(created.restKey), .sdkKey(created.sdkKey)] {
            let response = await app.request(.get, "/apps/\(created.app.id)", headers: headers)
            #expect(response.status == 401)
            #expect(response.json == ["errors": [.string(Authentication.badOrganizationKey)]])
            #expect(await app.request(.put, "/apps/\(created.app.id)", headers: headers, json: ["name": "Taken"]).status == 401)
        }
        #expect(try await AppStore.find(created.app.id, in: app.services.database)?.name == created.app.name)
    }
}
