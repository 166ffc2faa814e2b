import Foundation
import Testing
import Crypto
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// A paused app resumes when a `PUT` changes what paused it, and only then: one test per cause.
@Suite struct CredentialPauseResumeTests {
    static let organizationKey = "org-key-for-pause-tests"

    struct Admin {
        let harness: DeliveryHarness
        let app: TestApp
        var appID: String { harness.created.app.id }

        func put(_ body: JSONObject) async throws {
            let response = await app.request(.put, "/apps/\(appID)", headers: .restKey(CredentialPauseResumeTests.organizationKey),
                                             json: .object(body))
            try #require(response.status == 200, "PUT: \(response.text)")
        }

        func status() async throws -> JSONObject {
            let shown = await app.request(.get, "/apps/\(appID)", headers: .restKey(CredentialPauseResumeTests.organizationKey))
            return try #require(shown.json?.objectValue?["apns_status"]?.objectValue)
        }
    }

    static func admin(_ harness: DeliveryHarness) throws -> Admin {
        Admin(harness: harness, app: try TestApp.make(conninfo: harness.app.conninfo, configure: { $0.organizationAPIKey = organizationKey }))
    }

    static func states(_ harness: DeliveryHarness) async throws -> [String: Int] {
        try await DeliveryEngineTests.states(harness)
    }

    /// Sends one start, drains, and checks the app is now paused for `reason` with the row held.
    static func pausedBy(_ reason: String, _ harness: DeliveryHarness, _ admin: Admin) async throws {
        _ = try await DeliveryEngineTests.startableDevice(harness, pts: String(repeating: "4e", count: 32))
        let sent = await DeliveryEngineTests.start(harness)
        try #require(sent.status == 200 || sent.status == 201, "start: \(sent.text)")
        try await harness.drain()
        let status = try await admin.status()
        #expect(status["state"] == "paused")
        #expect(status["reason"] == .string(reason))
        #expect(try await states(harness) == ["queued": 1])
    }

    /// A `PUT` that does not touch what paused the app leaves it paused and its row held.
    static func staysPaused(after body: JSONObject, _ harness: DeliveryHarness, _ admin: Admin) async throws {
        try await admin.put(body)
        #expect(try await harness.drain() == 0, "a paused app's rows wait")
        #expect(try await admin.status()["state"] == "paused")
    }

    /// A `PUT` that fixes the cause resumes the app, and the held row goes out.
    static func resumes(after body: JSONObject, _ harness: DeliveryHarness, _ admin: Admin) async throws {
        try await admin.put(body)
        #expect(try await admin.status()["state"] == "ok")
        try await harness.drain()
        #expect(try await states(harness) == ["accepted": 1])
        #expect(harness.simulator.accepted().count == 1)
    }

    @Test func aMissingBundleIDResumesWhenTheBundleIDIsSet() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let admin = try Self.admin(harness)
        try await admin.put(["apns_bundle_id": .null])
        try await Self.pausedBy("MissingTopic", harness, admin)
        try await Self.staysPaused(after: ["name": "renamed", "apns_env": "production"], harness, admin)
        try await Self.resumes(after: ["apns_bundle_id": .string(DeliveryHarness.bundleID)], harness, admin)
    }

    @Test func aRejectedKeyResumesWhenTheKeyChangesNotTheBundleID() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let admin = try Self.admin(harness)
        try await admin.put(["apns_p8": .string(try P256SigningKey.generatePEM()), "apns_key_id": "UNKNOWNKEY"])
        try await Self.pausedBy("InvalidProviderToken", harness, admin)
        try await Self.staysPaused(after: ["apns_bundle_id": .string(DeliveryHarness.bundleID)], harness, admin)
        try await Self.resumes(after: ["apns_p8": .string(harness.p8), "apns_key_id": "KEYID00001"], harness, admin)
    }

    @Test func aMissingKeyResumesWhenTheKeyIsUploaded() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let admin = try Self.admin(harness)
        try await admin.put(["apns_p8": .null])
        try await Self.pausedBy("MissingProviderToken", harness, admin)
        try await Self.staysPaused(after: ["apns_watch_bundle_id": "com.example.watch"], harness, admin)
        try await Self.resumes(after: ["apns_p8": .string(harness.p8)], harness, admin)
    }
}
