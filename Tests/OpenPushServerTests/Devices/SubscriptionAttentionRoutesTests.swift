import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// `quiet_hours` and `muted_threads` through the `/v1` registration and the REST `PATCH`, as
/// every subscription view shows them, and their `400`s in each family's shape.
@Suite struct SubscriptionAttentionRoutesTests {
    static func path(_ app: CreatedApp, _ id: String) -> String { "/apps/\(app.app.id)/subscriptions/\(id)" }

    @Test func theRegistrationSetsKeepsAndClearsThemAndTheViewsShowThem() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Registry.token(1)
        let plain = try await app.deviceID(created, ["token": .string(Registry.token(2))])
        var view = await app.subscription(created, plain).json?.objectValue ?? [:]
        #expect(view["quiet_hours"] == .null)
        #expect(view["muted_threads"] == [])

        let id = try await app.deviceID(created, ["token": .string(token), "external_id": "u-1",
                                                  "quiet_hours": ["start": "22:00", "end": "07:30"],
                                                  "muted_threads": ["scores", "chat", "scores"]])
        view = await app.subscription(created, id).json?.objectValue ?? [:]
        #expect(view["quiet_hours"] == ["start": "22:00", "end": "07:30"])
        #expect(view["muted_threads"] == ["scores", "chat"])

        // A refresh that does not send them keeps them.
        #expect(await app.registerDevice(created, ["token": .string(token), "language": "en"]).status == 200)
        view = await app.subscription(created, id).json?.objectValue ?? [:]
        #expect(view["quiet_hours"] == ["start": "22:00", "end": "07:30"])
        #expect(view["muted_threads"] == ["scores", "chat"])
        let user = await app.request(.get, "/apps/\(created.app.id)/users/by/external_id/u-1", headers: .restKey(created.restKey))
        let devices = user.json?.objectValue?["subscriptions"]?.arrayValue ?? []
        #expect(devices.first?.objectValue?["quiet_hours"] == ["start": "22:00", "end": "07:30"])
        #expect(devices.first?.objectValue?["muted_threads"] == ["scores", "chat"])

        // `null` clears both.
        #expect(await app.registerDevice(created, ["token": .string(token), "quiet_hours": .null, "muted_threads": .null]).status == 200)
        view = await app.subscription(created, id).json?.objectValue ?? [:]
        #expect(view["quiet_hours"] == .null)
        #expect(view["muted_threads"] == [])
    }

    @Test func thePatchSetsAndClearsThemAlone() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await app.deviceID(created, ["token": .string(Registry.token(3)), "tags": ["a": "1"]])
        let set = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey), json: [
            "subscription": ["quiet_hours": ["start": "13:00", "end": "14:00"], "muted_threads": ["news"]]])
        #expect(set.status == 200)
        #expect(set.json?.objectValue?["quiet_hours"] == ["start": "13:00", "end": "14:00"])
        #expect(set.json?.objectValue?["muted_threads"] == ["news"])
        #expect(set.json?.objectValue?["tags"] == ["a": "1"])

        let cleared = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey),
                                        json: ["quiet_hours": .null])
        #expect(cleared.status == 200)
        #expect(cleared.json?.objectValue?["quiet_hours"] == .null)
        #expect(cleared.json?.objectValue?["muted_threads"] == ["news"])
        let emptied = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey),
                                        json: ["muted_threads": []])
        #expect(emptied.json?.objectValue?["muted_threads"] == [])
    }

    @Test func badValuesAre400sInEachFamilysShape() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Registry.token(4)
        let id = try await app.deviceID(created, ["token": .string(token)])

        let native = await app.registerDevice(created, ["token": .string(token), "quiet_hours": ["start": "07:00", "end": "07:00"]])
        #expect(native.status == 400)
        #expect(native.json == ["detail": "quiet_hours.start and quiet_hours.end must differ"])
        let tooMany = await app.registerDevice(created, ["token": .string(token),
                                                         "muted_threads": .array((0...100).map { .string("t\($0)") })])
        #expect(tooMany.status == 400)
        #expect(tooMany.json == ["detail": "muted_threads must hold at most 100 thread ids"])

        let rest = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey), json: [
            "subscription": ["quiet_hours": ["start": "25:00", "end": "07:00"], "muted_threads": [""]]])
        #expect(rest.status == 400)
        #expect(rest.json == ["errors": [#"subscription.quiet_hours.start must be a time "HH:MM" from 00:00 to 23:59"#,
                                         "subscription.muted_threads[0] must be 1 to 64 characters"]])
        // Nothing was written.
        let view = await app.subscription(created, id).json?.objectValue ?? [:]
        #expect(view["quiet_hours"] == .null)
        #expect(view["muted_threads"] == [])
    }
}
