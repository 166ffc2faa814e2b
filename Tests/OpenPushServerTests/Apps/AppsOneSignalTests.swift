import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// What OneSignal's client needs of the `/apps` and API key routes beyond OpenPush's own fields:
/// `organization_id` on every app, `token_id`/`formatted_token`/`updated_at`/`ip_allowlist_mode`
/// on keys, `PATCH …/auth/tokens/{token_id}` answering an object, and `App`'s other-channel fields
/// accepted and named as ignored.
@Suite struct AppsOneSignalTests {
    typealias Support = AppsTestSupport

    @Test func everyAppShowsTheOneOrganization() async throws {
        let app = try await Support.makeApp()
        let created = await app.request(.post, "/apps", headers: Support.organization, json: ["name": "A"])
        let id = try #require(created.json?.objectValue?["id"]?.stringValue)
        let org = try #require(created.json?.objectValue?["organization_id"]?.stringValue)
        #expect(org.hasPrefix("org_"))
        let second = try await app.createApp()
        let shown = await app.request(.get, "/apps/\(id)", headers: Support.organization)
        #expect(shown.json?.objectValue?["organization_id"] == .string(org))
        let updated = await app.request(.put, "/apps/\(second.app.id)", headers: Support.organization, json: ["name": "B"])
        #expect(updated.json?.objectValue?["organization_id"] == .string(org))
        let listed = try #require(await app.request(.get, "/apps", headers: Support.organization).json?.arrayValue)
        #expect(listed.count == 2 && listed.allSatisfy { $0.objectValue?["organization_id"] == .string(org) })
        // The id is the deployment's, stored once.
        let stored = try await app.services.database.query("SELECT id FROM organization")
        #expect(stored.count == 1)
        #expect(try stored.first?.decode("id", as: String.self) == org)
    }

    @Test func oneSignalsOtherChannelFieldsAreAcceptedAndNamedButCertificatesAreRefused() async throws {
        let app = try await Support.makeApp()
        let created = await app.request(.post, "/apps", headers: Support.organization, json: [
            "name": "OneSignal shaped", "apns_env": "sandbox", "site_name": "Shop", "chrome_web_origin": "https://shop.example",
            "gcm_key": nil, "additional_data_is_root_payload": false,
        ])
        #expect(created.status == 200, "\(created.text)")
        #expect(created.headers["OpenPush-Ignored-Fields"] == "site_name, chrome_web_origin, gcm_key, additional_data_is_root_payload")
        #expect(created.json?.objectValue?["site_name"] == nil)
        let refused = await app.request(.post, "/apps", headers: Support.organization,
                                        json: ["name": "P12", "apns_certificates": "-----BEGIN…", "colour": "red"])
        #expect(refused.status == 400)
        #expect(refused.json == ["errors": [
            .string("apns_certificates is not supported: send the certificate as apns_p12 (the .p12 file as base64) "
                + "with apns_p12_password, or a .p8 key (apns_p8, apns_key_id, apns_team_id)"),
            "unknown field 'colour'",
        ]])
    }

    @Test func updateRenamesAKeyAndAnswersIt() async throws {
        let clock = ManualClock()
        let app = try await Support.makeApp(now: clock.source)
        let created = try await app.createApp()
        let other = try await app.createApp()
        let path = "/apps/\(created.app.id)/auth/tokens/\(created.restKeyID)"
        clock.advance(by: 30)
        let response = await app.request(.patch, path, headers: Support.organization,
                                         json: ["name": "renamed", "ip_allowlist_mode": "disabled", "ip_allowlist": []])
        #expect(response.status == 200)
        let body = try #require(response.json?.objectValue)
        #expect(body["token_id"] == .string(created.restKeyID) && body["name"] == "renamed")
        #expect(body["updated_at"] == .string(Timestamp.iso8601(clock.now())))
        #expect(body["created_at"] != body["updated_at"])
        #expect(await app.restKeyStatus(created.app.id, created.restKey) == 200)
        // Another app's key through this app's path is unknown, and left as it was.
        let crossed = await app.request(.patch, "/apps/\(created.app.id)/auth/tokens/\(other.restKeyID)",
                                        headers: Support.organization, json: ["name": "stolen"])
        #expect(crossed.status == 404)
        #expect(crossed.json == ["errors": [.string("unknown token '\(other.restKeyID)'")]])
        let otherKeys = await app.request(.get, "/apps/\(other.app.id)/auth/tokens", headers: Support.organization)
        #expect(otherKeys.json?.objectValue?["tokens"]?.arrayValue?.first?.objectValue?["name"] == "default")
        #expect(await app.request(.patch, "/apps/app_unknown/auth/tokens/\(created.restKeyID)", headers: Support.organization,
                                  json: ["name": "x"]).status == 404)
        let explicit = await app.request(.patch, path, headers: Support.organization,
                                         json: ["ip_allowlist_mode": "explicit", "ip_allowlist": ["10.0.0.1"], "name": ""])
        #expect(explicit.json == ["errors": [
            "name is required", "ip_allowlist_mode must be disabled: OpenPush does not restrict keys by IP address",
            "ip_allowlist must be empty: OpenPush does not restrict keys by IP address",
        ]])
    }

    @Test func aRotatedKeyKeepsItsIdAndDeleteAnswersAnObject() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let added = await app.request(.post, "/apps/\(created.app.id)/auth/tokens", headers: Support.organization,
                                      json: ["name": "ci", "ip_allowlist_mode": "disabled"])
        #expect(added.status == 201)
        let keyID = try #require(added.json?.objectValue?["token_id"]?.stringValue)
        let first = try #require(added.json?.objectValue?["formatted_token"]?.stringValue)
        let rotated = await app.request(.post, "/apps/\(created.app.id)/auth/tokens/\(keyID)/rotate", headers: Support.organization)
        #expect(rotated.json?.objectValue?["token_id"] == .string(keyID))
        let second = try #require(rotated.json?.objectValue?["formatted_token"]?.stringValue)
        #expect(await app.restKeyStatus(created.app.id, first) == 401)
        #expect(await app.restKeyStatus(created.app.id, second) == 200)
        let deleted = await app.request(.delete, "/apps/\(created.app.id)/auth/tokens/\(keyID)", headers: Support.organization)
        #expect(deleted.status == 200 && deleted.json == ["success": true])
        #expect(await app.restKeyStatus(created.app.id, second) == 401)
    }
}
