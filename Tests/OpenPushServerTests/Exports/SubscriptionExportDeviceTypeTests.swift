import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The export's `device_type` is OneSignal's number of each device's platform, a browser's from
/// the browser its push service is (`web_type`): Chrome 5, Firefox 8, Edge 12, Safari through
/// Web Push 17 — not iOS's 0.
@Suite struct SubscriptionExportDeviceTypeTests {
    @Test func browsersShowTheirOwnDeviceTypes() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let phone = try await app.insertSubscription(appID: created.app.id, token: String(repeating: "a", count: 64))
        var browsers: [String: String] = [:]
        for type in ["ChromePush", "FirefoxPush", "EdgePush", "SafariPush"] {
            let id = "sub_web_\(type.lowercased())"
            try await app.services.database.query("""
                INSERT INTO subscriptions (id, app_id, platform, token, web_p256, web_auth, web_type, first_session_at,
                                           last_session_at)
                VALUES (\(id), \(created.app.id), 'web', \("https://push.example.com/" + type), 'p256', 'auth', \(type), now(), now())
                """)
            browsers[type] = id
        }
        let android = "sub_android_export"
        try await app.services.database.query("""
            INSERT INTO subscriptions (id, app_id, platform, token, first_session_at, last_session_at)
            VALUES (\(android), \(created.app.id), 'android', 'fcm-token', now(), now())
            """)
        let url = try SubscriptionExportTests.url(await SubscriptionExportTests.export(app, created, body: [:]))
        #expect(try await Exports.produce(app))
        let rows = Exports.rows(try Exports.records(try await Exports.download(app, url, key: created.restKey)))
        let types = Dictionary(uniqueKeysWithValues: rows.compactMap { row in row["id"].map { ($0, row["device_type"] ?? "") } })
        #expect(types[phone] == "0")
        #expect(types[android] == "1")
        #expect(types[browsers["ChromePush"] ?? ""] == "5")
        #expect(types[browsers["FirefoxPush"] ?? ""] == "8")
        #expect(types[browsers["EdgePush"] ?? ""] == "12")
        #expect(types[browsers["SafariPush"] ?? ""] == "17")
    }

    @Test func theNumbersFollowThePlatformAndBrowser() {
        #expect(OneSignalDeviceType.of(platform: "ios") == 0)
        #expect(OneSignalDeviceType.of(platform: "watchos") == 0)
        #expect(OneSignalDeviceType.of(platform: "macos") == 9)
        #expect(OneSignalDeviceType.of(platform: "android") == 1)
        #expect(OneSignalDeviceType.of(platform: "web", webType: "ChromePush") == 5)
        #expect(OneSignalDeviceType.of(platform: "web", webType: "FirefoxPush") == 8)
        #expect(OneSignalDeviceType.of(platform: "web", webType: "EdgePush") == 12)
        #expect(OneSignalDeviceType.of(platform: "web", webType: "SafariPush") == 17)
        // A browser without a known type is Chrome-like, never iOS.
        #expect(OneSignalDeviceType.of(platform: "web", webType: nil) == 5)
    }
}
