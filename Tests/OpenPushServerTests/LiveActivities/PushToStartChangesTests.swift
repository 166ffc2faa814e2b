import Testing
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// A start's job looks up its recipients' push-to-start tokens one by one only when a token of
/// its own app changed in a way the snapshot its recipients were read under does not see
/// (migration 0042); pruning drops the changes every job has seen.
@Suite struct PushToStartChangesTests {
    /// `PushToStartChanges.mayHaveChanged` of each job, oldest first.
    static func mayHaveChanged(_ harness: DeliveryHarness) async throws -> [Bool] {
        try await harness.app.services.database.query(
            "SELECT \(PushToStartChanges.mayHaveChanged) AS changed FROM delivery_jobs j ORDER BY j.id"
        ).map { try $0.decode("changed", as: Bool.self) }
    }

    static func changes(_ harness: DeliveryHarness) async throws -> Int {
        try await harness.app.services.database.query("SELECT count(*)::int AS n FROM push_to_start_token_changes")
            .firstRow().decode("n")
    }

    static func register(_ harness: DeliveryHarness, appID: String, subscriptionID: String, token: String) async throws {
        let now = harness.app.services.now()
        _ = try await harness.app.services.database.transaction { connection in
            try PushToStartStore.register(appID: appID, subscriptionID: subscriptionID, activityType: DeliveryEngineTests.type,
                                          token: token, now: now, in: connection)
        }
    }

    @Test func aJobChecksItsTokensOnlyAfterAChangeOfItsAppItsSnapshotDoesNotSee() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let device = try await DeliveryEngineTests.startableDevice(harness, token: String(repeating: "0a", count: 32),
                                                                   pts: String(repeating: "1b", count: 32))
        // Registered before the start: the job's snapshot sees every token.
        #expect(await DeliveryEngineTests.start(harness).status == 201)
        #expect(try await Self.mayHaveChanged(harness) == [false])

        // Another app's token replaced: not this job's concern (the log is keyed by app).
        let other = try await harness.app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other"))
        let theirs = try await harness.app.insertSubscription(appID: other.app.id, token: String(repeating: "0c", count: 32))
        try await Self.register(harness, appID: other.app.id, subscriptionID: theirs, token: String(repeating: "3b", count: 32))
        try await Self.register(harness, appID: other.app.id, subscriptionID: theirs, token: String(repeating: "4b", count: 32))
        #expect(try await Self.changes(harness) == 1)
        // The same token registered again changes nothing.
        try await Self.register(harness, appID: appID, subscriptionID: device, token: String(repeating: "1b", count: 32))
        #expect(try await Self.changes(harness) == 1)
        #expect(try await Self.mayHaveChanged(harness) == [false])

        // This app's token replaced after the start: that job checks; a start queued afterwards
        // read the new token and does not.
        try await Self.register(harness, appID: appID, subscriptionID: device, token: String(repeating: "2b", count: 32))
        #expect(await DeliveryEngineTests.start(harness, body: ["activity_id": "order-2"]).status == 201)
        #expect(try await Self.mayHaveChanged(harness) == [true, false])

        // Pruning keeps the changes while a job may not have seen them (and, in the maintenance,
        // for an hour whatever the jobs).
        try await PushToStartChanges.prune(settle: 0, in: harness.app.services.database)
        #expect(try await Self.changes(harness) == 2)
        // The first job sends nothing to the replaced token; then no job is left and no change is kept.
        #expect(try await harness.drain() == 2)
        #expect(harness.simulator.accepted().map(\.deviceToken) == [String(repeating: "2b", count: 32)])
        try await Maintenance.runOnce(harness.app.services, now: harness.app.services.now())
        #expect(try await Self.changes(harness) == 2)
        try await PushToStartChanges.prune(settle: 0, in: harness.app.services.database)
        #expect(try await Self.changes(harness) == 0)
    }

    @Test func aRemovedTokenIsAChangeToo() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let device = try await DeliveryEngineTests.startableDevice(harness, token: String(repeating: "0a", count: 32),
                                                                   pts: String(repeating: "1b", count: 32))
        #expect(await DeliveryEngineTests.start(harness).status == 201)
        try await harness.app.services.database.query("DELETE FROM subscriptions WHERE id = \(device)")
        #expect(try await Self.mayHaveChanged(harness) == [true])
    }

    /// Jobs queued before the log, and retries, carry no snapshot: they always check.
    @Test func aJobWithoutASnapshotAlwaysChecks() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await DeliveryEngineTests.startableDevice(harness, pts: String(repeating: "1b", count: 32))
        #expect(await DeliveryEngineTests.start(harness).status == 201)
        #expect(try await Self.mayHaveChanged(harness) == [false])
        try await harness.app.services.database.query("UPDATE delivery_jobs SET recipients_snapshot = NULL")
        #expect(try await Self.mayHaveChanged(harness) == [true])
    }
}
