import Foundation
import Testing
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Many processes through PgBouncer in transaction pooling (issue 16): two `serve` and two
/// `worker` processes whose pools share four server connections, so consecutive transactions of
/// one process run on different server connections and no session state can carry over; LISTEN
/// and migrations use the direct URL. The limits must still hold globally and nothing be lost.
/// Each test has its deployment of its own, one after another (they are heavy).
@Suite(.serialized) struct PgBouncerScaleOutTests {
    static let type = "DeliveryAttributes"

    static func startBody(idempotencyKey: String? = nil) -> JSONValue {
        var body = LiveActivitySendTests.startBody(["include_aliases": ["external_id": ["u-0"]]])
        if let idempotencyKey { body["idempotency_key"] = .string(idempotencyKey) }
        return .object(body)
    }

    /// A fan-out the workers expand page by page and send in jobs, all through pgbouncer.
    func notifyEveryone(_ deployment: PgBouncerDeployment, server: Int = 0) async throws -> String {
        let response = try await deployment.request(server, "POST", "/notifications", json: [
            "app_id": .string(deployment.created.app.id), "included_segments": ["Subscribed Users"],
            "contents": ["en": "Scale-out"],
        ], headers: deployment.restKeyHeader)
        try #require(response.status == 200, "notification: \(response.status) \(response.text)\n\(deployment.logs)")
        return try #require(try JSONValue.parse(response.body).objectValue?["id"]?.stringValue)
    }

    @Test func aTwentyThousandDeviceFanOutGivesEachDeviceExactlyOnePush() async throws {
        let deployment = try await PgBouncerDeployment.start(servers: 2, workers: 2)
        defer { Task { await deployment.shutdown() } }
        let tokens = try await deployment.insertDevices(20_000, prefix: "a1")
        let messageID = try await notifyEveryone(deployment)
        let finished = try await PgBouncerDeployment.waitUntil(.seconds(240)) {
            guard try await deployment.acceptedCount() >= 20_000 else { return false }
            return try await deployment.unfinishedWork() == 0
        }
        let accepted = try await deployment.acceptedCount()
        try #require(finished, "accepted \(accepted) of 20000\n\(deployment.logs)")
        let pushes = try await deployment.acceptedPushes()
        #expect(Set(pushes.keys) == tokens)
        let repeated = pushes.filter { $0.value.count != 1 }
        if let (token, apnsIDs) = repeated.first {
            // Which way it went twice: a second attempt (a retry after a transport failure) or a
            // second run of attempt 1 (a job leased twice).
            let record = try await deployment.direct.query("""
                SELECT d.attempts, d.state, coalesce(d.error_reason, '-') AS reason FROM deliveries d
                JOIN subscriptions s ON s.id = d.subscription_id WHERE s.token = \(token)
                """).map { "attempts \(try $0.decode("attempts", as: Int.self)) \(try $0.decode("state", as: String.self)) "
                           + (try $0.decode("reason", as: String.self)) }
            Issue.record("\(repeated.count) devices got more than one push, e.g. \(token): \(apnsIDs), recorded \(record)\n\(deployment.logs)")
        }
        // One outcome per device, recorded once.
        let records = try await deployment.direct.query("""
            SELECT count(*)::int AS n, count(DISTINCT subscription_id)::int AS devices,
                   count(*) FILTER (WHERE state = 'accepted')::int AS accepted
            FROM deliveries WHERE message_id = \(messageID)
            """).firstRow()
        #expect(try records.decode("n", as: Int.self) == 20_000)
        #expect(try records.decode("devices", as: Int.self) == 20_000)
        #expect(try records.decode("accepted", as: Int.self) == 20_000)
        // Four processes ran thousands of transactions on pgbouncer's four server connections:
        // none of them left a setting behind on any.
        try await deployment.serverConnectionsHoldTheDefaults()
    }

    @Test func theSendRateLimitHoldsAcrossBothServers() async throws {
        let deployment = try await PgBouncerDeployment.start(servers: 2, workers: 0)
        defer { Task { await deployment.shutdown() } }
        try await deployment.insertStartableDevice(activityType: Self.type)
        let path = "/apps/\(deployment.created.app.id)/activities/activity/\(Self.type)"
        var statuses: [Int] = []
        for index in 0..<60 {
            let response = try await deployment.request(index % 2, "POST", path, json: Self.startBody(),
                                                        headers: deployment.restKeyHeader)
            statuses.append(response.status)
        }
        // Each a real start: admitted, its message and job written.
        #expect(statuses.allSatisfy { $0 == 201 }, "\(statuses)")
        // The 61st in the window, on either server, is refused with the contract's status and text.
        for server in 0..<2 {
            let refused = try await deployment.request(server, "POST", path, json: Self.startBody(),
                                                       headers: deployment.restKeyHeader)
            #expect(refused.status == 429, "server \(server): \(refused.status) \(refused.text)")
            #expect(refused.headers["retry-after"] == "60")
            #expect(try JSONValue.parse(refused.body) == ["errors": ["too many Live Activity requests for this app"]])
        }
    }

    @Test func anIdempotentStartRacedOnBothServersCreatesOneMessage() async throws {
        let deployment = try await PgBouncerDeployment.start(servers: 2, workers: 0)
        defer { Task { await deployment.shutdown() } }
        try await deployment.insertStartableDevice(activityType: Self.type)
        let path = "/apps/\(deployment.created.app.id)/activities/activity/\(Self.type)"
        let body = Self.startBody(idempotencyKey: "3b9f1c52-7e0a-4d8b-9c61-52a7e4f0d913")
        let headers = deployment.restKeyHeader
        let responses = try await withThrowingTaskGroup(of: Curl.Result.self) { group in
            for index in 0..<12 {
                group.addTask { try await deployment.request(index % 2, "POST", path, json: body, headers: headers) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.status == 201 }, "\(responses.map { "\($0.status) \($0.text)" })")
        let ids = Set(responses.compactMap { try? JSONValue.parse($0.body).objectValue?["notification_id"]?.stringValue })
        #expect(ids.count == 1)
        #expect(responses.filter { $0.headers["idempotent-replayed"] == "true" }.count == 11)
        let messages = try await deployment.direct.query("""
            SELECT count(*)::int AS n FROM messages WHERE app_id = \(deployment.created.app.id)
            """).firstRow().decode("n", as: Int.self)
        #expect(messages == 1)
    }

    /// At-least-once (DESIGN.md): a worker that dies leaves its jobs to be leased again once
    /// their lease runs out; the re-run carries the same `apns-id`, and each device's outcome is
    /// still recorded once.
    @Test func killingOneWorkerMidFanOutLosesNothing() async throws {
        let deployment = try await PgBouncerDeployment.start(servers: 1, workers: 2)
        defer { Task { await deployment.shutdown() } }
        let count = 8_000
        let tokens = try await deployment.insertDevices(count, prefix: "b2")
        let messageID = try await notifyEveryone(deployment)
        let started = try await PgBouncerDeployment.waitUntil(.seconds(120)) { try await deployment.acceptedCount() >= 500 }
        try #require(started, "no pushes arrived\n\(deployment.logs)")
        // The worker killed is one that holds a leased job (`leased_by` is host:pid:…), so it
        // dies with jobs in flight, whichever of the two got them.
        var victim: OpenPushProcess?
        _ = try await PgBouncerDeployment.waitUntil(.seconds(60)) {
            let holders = try await deployment.direct.query("""
                SELECT DISTINCT leased_by FROM delivery_jobs
                WHERE app_id = \(deployment.created.app.id) AND leased_until > now() AND leased_by IS NOT NULL
                """).map { try $0.decode("leased_by", as: String.self) }
            let pids = Set(holders.compactMap { $0.split(separator: ":").dropFirst().first.flatMap { Int32($0) } })
            victim = deployment.workers.first { pids.contains($0.processIdentifier) }
            return victim != nil
        }
        let killed = try #require(victim, "no worker held a job\n\(deployment.logs)")
        killed.signal(SIGKILL)
        _ = try? await killed.waitForExit(timeout: .seconds(10))
        #expect(try await deployment.acceptedCount() < count, "the fan-out was over before the kill; the test proves nothing")
        // The killed worker's leases (30 s) run out and the survivor takes its jobs over.
        let finished = try await PgBouncerDeployment.waitUntil(.seconds(240)) {
            try await deployment.unfinishedWork() == 0
        }
        try #require(finished, "work left after the kill\n\(deployment.logs)")
        let pushes = try await deployment.acceptedPushes()
        #expect(Set(pushes.keys) == tokens, "\(tokens.subtracting(pushes.keys).count) devices got no push")
        // A device pushed twice (its job was in flight at the kill) got the same apns-id both times.
        #expect(pushes.values.allSatisfy { Set($0).count == 1 })
        let records = try await deployment.direct.query("""
            SELECT count(*)::int AS n, count(DISTINCT subscription_id)::int AS devices,
                   count(*) FILTER (WHERE state = 'accepted')::int AS accepted
            FROM deliveries WHERE message_id = \(messageID)
            """).firstRow()
        #expect(try records.decode("n", as: Int.self) == count)
        #expect(try records.decode("devices", as: Int.self) == count)
        #expect(try records.decode("accepted", as: Int.self) == count)
    }

    /// The workers LISTEN on the direct URL: through pgbouncer in transaction mode a LISTEN
    /// lands on a server connection that is handed to other clients, and its NOTIFYs are lost.
    /// An idle loop sleeps up to 30 s without one, so a push within 10 s was woken by the NOTIFY.
    @Test func aSendWakesAnIdleWorkerThroughItsDirectListen() async throws {
        let deployment = try await PgBouncerDeployment.start(servers: 1, workers: 1)
        defer { Task { await deployment.shutdown() } }
        try await deployment.insertStartableDevice(activityType: Self.type)
        // Past the loops' first look at the empty queue: they sleep now.
        try await Task.sleep(for: .seconds(1))
        let path = "/apps/\(deployment.created.app.id)/activities/activity/\(Self.type)"
        let sent = ContinuousClock.now
        let response = try await deployment.request(0, "POST", path, json: Self.startBody(), headers: deployment.restKeyHeader)
        #expect(response.status == 201, "\(response.text)")
        let arrived = try await PgBouncerDeployment.waitUntil(.seconds(10)) { try await deployment.acceptedCount() == 1 }
        #expect(arrived, "no push \(ContinuousClock.now - sent) after the send\n\(deployment.logs)")
    }

    @Test func readyFailsWhileItsPgBouncerIsGoneAndRecoversWhenItReturns() async throws {
        let deployment = try await PgBouncerDeployment.start(servers: 1, workers: 0)
        defer { Task { await deployment.shutdown() } }
        func ready() async throws -> Curl.Result { try await deployment.request(0, "GET", "/ready") }
        #expect(try await ready().status == 200)
        deployment.bouncer.stop()
        let failed = try await ready()
        #expect(failed.status == 503)
        #expect(try JSONValue.parse(failed.body) == ["status": "unavailable", "reason": "the database is unavailable"])
        // The same port again: the server's pool reconnects by itself.
        try await deployment.bouncer.start()
        let recovered = try await PgBouncerDeployment.waitUntil(.seconds(30)) { try await ready().status == 200 }
        #expect(recovered, "\(deployment.logs)")
        #expect(try JSONValue.parse(try await ready().body) == ["status": "ready"])
    }
}
