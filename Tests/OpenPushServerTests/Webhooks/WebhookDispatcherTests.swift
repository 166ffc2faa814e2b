import Crypto
import Foundation
import HTTPClient
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// The dispatcher against local receivers: batches in order, signatures checked from the raw
/// bytes received, retries, disabling after the window, a crash before the send, isolation
/// between endpoints, and refused private addresses. Webhook and event rows are written directly.
@Suite struct WebhookDispatcherTests {
    struct Setup: Sendable {
        var app: TestApp
        var appID: String
        var restKey: String
        var client: HTTPClient
    }

    static func setup() async throws -> Setup {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        return Setup(app: app, appID: created.app.id, restKey: created.restKey, client: try HTTPClient())
    }

    static func webhook(_ setup: Setup, appID: String? = nil, url: String, events: [String] = ["*"],
                        secret: String = "whsec_test_secret") async throws -> String {
        let id = "whk_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await setup.app.services.database.query("""
            INSERT INTO webhooks (id, app_id, url, events, secret) VALUES (\(id), \(appID ?? setup.appID), \(url), \(events)::text[], \(secret))
            """)
        return id
    }

    static func append(_ setup: Setup, count: Int, appID: String? = nil, type: EventType = .deliveryAccepted) async throws {
        let events = (0..<count).map {
            OutboundEvent(type: type, appID: appID ?? setup.appID, data: ["notification_id": .string("n\($0)"), "index": .string(String($0))])
        }
        try await setup.app.services.database.transaction { try EventOutbox.append(events, in: $0) }
    }

    static func dispatcher(_ setup: Setup, timeout: Duration = .seconds(60), allowPrivate: Bool = true,
                           clock: DatabaseClock = DatabaseClock(), idleWake: Duration? = nil) -> WebhookDispatcher {
        var settings = WebhookDispatcher.Settings()
        settings.requestTimeout = timeout
        if let idleWake { settings.idleWake = idleWake }
        settings.allowPrivate = allowPrivate
        settings.clock = clock
        return WebhookDispatcher(services: setup.app.services, client: setup.client, settings: settings,
                                 logger: Logger(label: "test", level: .debug, handler: setup.app.logs), jitter: { 0.5 })
    }

    /// Runs the dispatcher once an attempt is due: events become visible only once every older
    /// transaction in the cluster has ended, and parallel tests keep some open for a moment.
    static func attempt(_ dispatcher: WebhookDispatcher, expecting count: Int = 1) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(120)
        var attempted = 0
        while attempted < count, ContinuousClock.now < deadline {
            attempted += try await dispatcher.runOnce()
            if attempted < count { try await Task.sleep(for: .milliseconds(25)) }
        }
        return attempted
    }

    static func row(_ setup: Setup, _ id: String) async throws -> PostgresRow {
        try await setup.app.services.database.query("""
            SELECT enabled, disabled_reason, cursor_seq, failed_attempts, failing_since IS NOT NULL AS failing,
                   last_success_at IS NOT NULL AS succeeded, last_failure_at IS NOT NULL AS failed_once, last_failure_status,
                   last_failure_reason, extract(epoch FROM next_attempt_at - now())::float8 AS due_in,
                   extract(epoch FROM next_attempt_at - last_failure_at)::float8 AS backoff, lease_token
            FROM webhooks WHERE id = \(id)
            """).firstRow()
    }

    static func eventIDs(_ setup: Setup, appID: String? = nil) async throws -> [String] {
        try await setup.app.services.database.query("SELECT id FROM events WHERE app_id = \(appID ?? setup.appID) ORDER BY seq")
            .map { try $0.decode("id") }
    }

    /// Checks `OpenPush-Signature` against the raw bytes received, with HMAC-SHA256 of each secret.
    static func verify(_ received: WebhookReceiver.Received, secrets: [String]) throws {
        let header = try #require(received.headers["OpenPush-Signature"])
        let parts = header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        #expect(parts.first?.first == "t")
        let t = try #require(parts.first?.last)
        #expect(abs(Double(t)! - Date().timeIntervalSince1970) < 60)
        let v1 = parts.dropFirst().filter { $0.first == "v1" }.map { $0[1] }
        let expected = secrets.map { HMACSHA256.authenticationCode(key: Array($0.utf8), message: Array("\(t).".utf8) + received.body).hexString }
        #expect(v1 == expected, "\(header)")
    }

    @Test func twoHundredFiftyEventsArriveInThreeSignedPostsInOrder() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        let id = try await Self.webhook(setup, url: receiver.url)
        try await Self.append(setup, count: 250)
        try await Maintenance.refreshMetrics(setup.app.services)
        let metricsBefore = String(decoding: await setup.app.request(.get, "/metrics").body, as: UTF8.self)
        #expect(metricsBefore.contains("openpush_webhook_events_pending{app=\"\(setup.appID)\"} 250"))

        let dispatcher = Self.dispatcher(setup)
        // One lease sends the full batches one after another, and the last, short one.
        #expect(try await Self.attempt(dispatcher) == 1)
        #expect(try await dispatcher.runOnce() == 0)

        let received = receiver.received
        #expect(received.map(\.eventIDs.count) == [100, 100, 50], "\(setup.app.logs.all)")
        #expect(receiver.eventIDs == (try await Self.eventIDs(setup)))
        for post in received {
            #expect(post.headers["Content-Type"] == "application/json")
            #expect(post.headers["OpenPush-Webhook-Id"] == id)
            try Self.verify(post, secrets: ["whsec_test_secret"])
            let event = try #require(try JSONValue.parse(post.body).objectValue?["events"]?.arrayValue?.first?.objectValue)
            #expect(Set(event.keys) == ["id", "type", "created_at", "app_id", "data"])
            #expect(event["type"] == "delivery.accepted")
            #expect(event["app_id"]?.stringValue == setup.appID)
        }
        let row = try await Self.row(setup, id)
        #expect(try row.decode("succeeded", as: Bool.self))
        #expect(try row.decode("cursor_seq", as: Int64.self) > 0)
        #expect(try row.decode("lease_token", as: String?.self) == nil)
        try await Maintenance.refreshMetrics(setup.app.services)
        let metrics = String(decoding: await setup.app.request(.get, "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("openpush_webhook_events_sent_total{app=\"\(setup.appID)\"} 250"))
        #expect(metrics.contains("openpush_webhook_events_pending{app=\"\(setup.appID)\"} 0"))
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func onlySubscribedTypesAndTheirOwnPings() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        let id = try await Self.webhook(setup, url: receiver.url, events: ["click"])
        let other = try await Self.webhook(setup, url: receiver.url + "/other", events: ["*"])
        // One transaction, so all four become visible together.
        try await setup.app.services.database.transaction {
            try EventOutbox.append([
                OutboundEvent(type: .deliveryAccepted, appID: setup.appID, data: [:]),
                OutboundEvent(type: .deliveryAccepted, appID: setup.appID, data: [:]),
                OutboundEvent(type: .click, appID: setup.appID, data: [:]),
                OutboundEvent(type: .ping, appID: setup.appID, data: [:], webhookID: id),
            ], in: $0)
        }
        #expect(try await Self.attempt(Self.dispatcher(setup), expecting: 2) == 2)
        let byEndpoint = Dictionary(grouping: receiver.received, by: { $0.headers["OpenPush-Webhook-Id"] ?? "" })
        let types = { (endpoint: String) in
            byEndpoint[endpoint, default: []].flatMap { post in
                (try? JSONValue.parse(post.body).objectValue?["events"]?.arrayValue ?? []).map { $0.compactMap { $0.objectValue?["type"]?.stringValue } } ?? []
            }
        }
        #expect(types(id) == ["click", "ping"])
        #expect(types(other) == ["delivery.accepted", "delivery.accepted", "click"])
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func afterARotationBothSecretsSign() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        let id = try await Self.webhook(setup, url: receiver.url, secret: "whsec_new")
        try await setup.app.services.database.query("""
            UPDATE webhooks SET previous_secret = 'whsec_old', previous_secret_until = now() + interval '24 hours' WHERE id = \(id)
            """)
        try await Self.append(setup, count: 1)
        let dispatcher = Self.dispatcher(setup)
        _ = try await Self.attempt(dispatcher)
        try Self.verify(try #require(receiver.received.last), secrets: ["whsec_new", "whsec_old"])
        // Once the old secret's day is over, only the new one signs.
        try await setup.app.services.database.query("UPDATE webhooks SET previous_secret_until = now() - interval '1 second' WHERE id = \(id)")
        try await Self.append(setup, count: 1)
        _ = try await Self.attempt(dispatcher)
        #expect(receiver.received.count == 2)
        try Self.verify(try #require(receiver.received.last), secrets: ["whsec_new"])
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func aFiveHundredIsRetriedWithBackoffThenEverythingArrivesOnce() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        receiver.answer(status: 500)
        let id = try await Self.webhook(setup, url: receiver.url)
        try await Self.append(setup, count: 3)
        let dispatcher = Self.dispatcher(setup)
        #expect(try await Self.attempt(dispatcher) == 1)
        var row = try await Self.row(setup, id)
        #expect(try row.decode("failed_attempts", as: Int.self) == 1)
        #expect(try row.decode("failing", as: Bool.self))
        #expect(try row.decode("last_failure_status", as: Int?.self) == 500)
        #expect(try row.decode("last_failure_reason", as: String?.self) == "last status 500")
        // 5 s backoff at half jitter: 3.75 s after the failure (counted from the failure, not from
        // now: on a loaded machine reading the row can take a while).
        let backoff = try row.decode("backoff", as: Double.self)
        #expect(abs(backoff - 3.75) < 0.001, "\(backoff)")
        // Not due yet, it is not tried (its time moved an hour out: a loaded machine can take
        // longer than the backoff to get here).
        try await setup.app.services.database.query("UPDATE webhooks SET next_attempt_at = now() + interval '1 hour' WHERE id = \(id)")
        #expect(try await dispatcher.runOnce() == 0, "not due yet")
        // The second failure waits twice as long.
        try await setup.app.services.database.query("UPDATE webhooks SET next_attempt_at = now() WHERE id = \(id)")
        #expect(try await Self.attempt(dispatcher) == 1)
        row = try await Self.row(setup, id)
        #expect(try row.decode("failed_attempts", as: Int.self) == 2)
        #expect(abs(try row.decode("backoff", as: Double.self) - 7.5) < 0.001)

        receiver.answer(status: 204)
        try await setup.app.services.database.query("UPDATE webhooks SET next_attempt_at = now() WHERE id = \(id)")
        #expect(try await Self.attempt(dispatcher) == 1)
        #expect(try await dispatcher.runOnce() == 0)
        let posts = receiver.received
        #expect(posts.count == 3)
        // Each attempt carries the same batch; the success delivers every event, once.
        #expect(posts.last?.eventIDs == (try await Self.eventIDs(setup)))
        row = try await Self.row(setup, id)
        #expect(try row.decode("failed_attempts", as: Int.self) == 0)
        #expect(try !row.decode("failing", as: Bool.self))
        #expect(setup.app.services.metrics.webhooks.failed(app: setup.appID) == 6)
        #expect(setup.app.services.metrics.webhooks.sent(app: setup.appID) == 3)
        // /metrics shows the events of the failed attempts for the app.
        try await Maintenance.refreshMetrics(setup.app.services)
        let metrics = String(decoding: await setup.app.request(.get, "/metrics").body, as: UTF8.self)
        let failedLine = metrics.split(separator: "\n").first { $0.hasPrefix("openpush_webhook_events_failed_total{app=\"\(setup.appID)\"} ") }
        let failedValue = failedLine.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        #expect((failedValue ?? 0) > 0, "\(failedLine.map(String.init) ?? "no openpush_webhook_events_failed_total line for the app")")
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func aTimeoutIsAFailureWithNoStatus() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        // It answers only when released, so only the timeout can end the first attempt.
        receiver.hold()
        let id = try await Self.webhook(setup, url: receiver.url)
        try await Self.append(setup, count: 2)
        #expect(try await Self.attempt(Self.dispatcher(setup, timeout: .seconds(2))) == 1)
        var row = try await Self.row(setup, id)
        #expect(try row.decode("last_failure_status", as: Int?.self) == nil)
        #expect(try row.decode("last_failure_reason", as: String?.self)?.hasPrefix("timed out") == true)
        #expect(try row.decode("failed_attempts", as: Int.self) == 1)

        receiver.release()
        try await setup.app.services.database.query("UPDATE webhooks SET next_attempt_at = now() WHERE id = \(id)")
        #expect(try await Self.attempt(Self.dispatcher(setup)) == 1)
        row = try await Self.row(setup, id)
        #expect(try row.decode("succeeded", as: Bool.self))
        #expect(receiver.received.last?.eventIDs == (try await Self.eventIDs(setup)))
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    /// The retry window walked with a manual clock: the dispatcher reads PostgreSQL's time
    /// through a `DatabaseClock` the test moves, from one backoff to the next, until a day of
    /// failures disables the endpoint.
    @Test func failingForADayOnAManualClockDisablesDropsPendingEventsAndReEnablingResumesWithNewOnes() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        receiver.answer(status: 500)
        let id = try await Self.webhook(setup, url: receiver.url)
        try await Self.append(setup, count: 3)
        let pending = try await Self.eventIDs(setup)
        let clock = DatabaseClock()
        let dispatcher = Self.dispatcher(setup, clock: clock)
        let schedule = WebhookRetrySchedule()
        #expect(try await Self.attempt(dispatcher) == 1)

        var failures = 1
        var elapsed = 0.0
        while try await Self.row(setup, id).decode("enabled", as: Bool.self), failures < 60 {
            let row = try await Self.row(setup, id)
            #expect(try row.decode("failed_attempts", as: Int.self) == failures)
            // Scheduled at its backoff from the failure, both stamped from the dispatcher's clock.
            let scheduled: Double = try await setup.app.services.database.query("""
                SELECT extract(epoch FROM next_attempt_at - last_failure_at)::float8 AS s FROM webhooks WHERE id = \(id)
                """).firstRow().decode("s")
            let backoff = schedule.delay(afterFailures: failures, jitter: 0.5)
            #expect(abs(scheduled - backoff) < 0.001, "attempt \(failures): scheduled \(scheduled) s after, backoff \(backoff)")
            // `due_in` is against PostgreSQL's own now(); the dispatcher's clock runs ahead by the offset.
            let dueIn = try row.decode("due_in", as: Double.self) - clock.offsetSeconds
            // Not well before its backoff, and at it. The dispatcher's clock runs on with real
            // time between these lines, so "well before" is checked where the backoff leaves a
            // loaded machine 30 s of slack (a run lost the 1.9 s of the first backoff's half).
            if backoff >= 60 {
                clock.advance(by: dueIn - backoff / 2)
                #expect(try await dispatcher.runOnce() == 0, "attempt \(failures + 1) came early")
                clock.advance(by: backoff / 2 + 0.01)
            } else {
                clock.advance(by: dueIn + 0.01)
            }
            // Through `attempt`: a parallel test's open transaction can hide the events for a moment.
            #expect(try await Self.attempt(dispatcher) == 1, "attempt \(failures + 1) did not come at its backoff")
            elapsed += backoff
            failures += 1
        }
        // 5 s doubling to the hour cap (at half jitter) passes 24 h on the 42nd attempt, which disables it.
        #expect(failures == 42)
        #expect(elapsed > 86_400 && elapsed < 86_400 + 2700, "\(elapsed)")
        #expect(receiver.received.count == 42)
        #expect(receiver.received.allSatisfy { $0.eventIDs == pending })

        let row = try await Self.row(setup, id)
        #expect(try !row.decode("enabled", as: Bool.self))
        #expect(try row.decode("failed_attempts", as: Int.self) == 0)
        #expect(try !row.decode("failing", as: Bool.self))
        let shown = await setup.app.request(.get, "/apps/\(setup.appID)/webhooks/\(id)", headers: .restKey(setup.restKey))
        #expect(shown.json?.objectValue?["enabled"] == false, "\(shown.text)")
        #expect(shown.json?.objectValue?["disabled_reason"] == "failing for 24 hours: last status 500")
        #expect(shown.json?.objectValue?["last_failure_status"] == 500)
        // Its pending events were dropped: the cursor is at the app's newest event.
        let newest = try await setup.app.services.database.query("SELECT max(seq) AS seq FROM events WHERE app_id = \(setup.appID)")
            .firstRow().decode("seq", as: Int64.self)
        #expect(try row.decode("cursor_seq", as: Int64.self) == newest)
        try await Maintenance.refreshMetrics(setup.app.services)
        let metrics = String(decoding: await setup.app.request(.get, "/metrics").body, as: UTF8.self)
        #expect(!metrics.contains("openpush_webhook_events_pending{app=\"\(setup.appID)\"}"))

        // Disabled: nothing more is sent, however late it gets.
        receiver.answer(status: 200)
        try await Self.append(setup, count: 2)
        clock.advance(by: 86_400)
        #expect(try await dispatcher.runOnce() == 0)
        #expect(receiver.received.count == 42)

        // Re-enabled through PATCH: new events only, none of those dropped or appended while disabled.
        let enabled = await setup.app.request(.patch, "/apps/\(setup.appID)/webhooks/\(id)", headers: .restKey(setup.restKey),
                                              json: ["enabled": true])
        #expect(enabled.status == 200, "\(enabled.text)")
        #expect(enabled.json?.objectValue?["disabled_reason"] == .null)
        let before = Set(try await Self.eventIDs(setup))
        try await Self.append(setup, count: 2)
        let fresh = try await Self.eventIDs(setup).filter { !before.contains($0) }
        #expect(try await Self.attempt(dispatcher) == 1)
        #expect(receiver.received.count == 43)
        #expect(receiver.received.last?.eventIDs == fresh)
        let after = try await Self.row(setup, id)
        #expect(try after.decode("enabled", as: Bool.self))
        #expect(try after.decode("succeeded", as: Bool.self))
        #expect(try after.decode("failed_attempts", as: Int.self) == 0)
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func eventsAppendedWhileNoDispatcherRanArriveOnceOneStartsAndNotifyWakesIt() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        _ = try await Self.webhook(setup, url: receiver.url)
        // The facts committed; the process died before sending.
        try await Self.append(setup, count: 5)
        // The safety net's poll is pushed past the test's waits, so only the NOTIFY can wake it.
        let dispatcher = Self.dispatcher(setup, idleWake: .seconds(600))
        dispatcher.start()
        #expect(await receiver.wait(timeout: .seconds(120)) { $0.flatMap(\.eventIDs).count == 5 })
        // Idle now; a new event's NOTIFY wakes it.
        try await Task.sleep(for: .milliseconds(300))
        try await Self.append(setup, count: 1)
        #expect(await receiver.wait(timeout: .seconds(240)) { $0.flatMap(\.eventIDs).count == 6 })
        await dispatcher.stop()
        #expect(receiver.eventIDs == (try await Self.eventIDs(setup)))
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func aGracefulStopFinishesTheAttemptInFlightAndRecordsIt() async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        receiver.answer(status: 200, after: .seconds(1))
        let id = try await Self.webhook(setup, url: receiver.url)
        try await Self.append(setup, count: 2)
        let dispatcher = Self.dispatcher(setup)
        dispatcher.start()
        #expect(await receiver.wait { !$0.isEmpty })
        await dispatcher.stop()
        let row = try await Self.row(setup, id)
        #expect(try row.decode("succeeded", as: Bool.self))
        #expect(try row.decode("lease_token", as: String?.self) == nil)
        #expect(receiver.eventIDs == (try await Self.eventIDs(setup)))
        // Stopped: a new event is not sent.
        try await Self.append(setup, count: 1)
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.received.count == 1)
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func aHangingEndpointDoesNotDelayAnotherAppsEndpoint() async throws {
        let setup = try await Self.setup()
        let otherApp = try await setup.app.createApp().app.id
        let slow = try WebhookReceiver()
        // It hangs until the test lets it answer, far inside the dispatcher's timeout: whatever
        // the machine's load, the other app's events can only arrive by not waiting for it.
        slow.hold()
        let fast = try WebhookReceiver()
        _ = try await Self.webhook(setup, url: slow.url)
        _ = try await Self.webhook(setup, appID: otherApp, url: fast.url)
        let dispatcher = Self.dispatcher(setup, timeout: .seconds(600))
        dispatcher.start()
        try await Self.append(setup, count: 3)
        #expect(await slow.wait { !$0.isEmpty })
        try await Self.append(setup, count: 3, appID: otherApp)
        #expect(await fast.wait { $0.flatMap(\.eventIDs).count == 3 })
        #expect(slow.answered == 0, "the other app's events waited for the hanging endpoint")
        #expect(slow.received.count == 1)
        slow.release()
        await dispatcher.stop()
        await slow.shutdown()
        await fast.shutdown()
        await setup.client.shutdown()
    }

    @Test(arguments: ["https://127.0.0.1:%d/hooks", "https://localhost:%d/hooks", "https://[::1]:%d/hooks", "http://127.0.0.1:%d/hooks"])
    func privateTargetsAreRefusedWhenNotAllowed(_ pattern: String) async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        let id = try await Self.webhook(setup, url: String(format: pattern, Int(receiver.port)))
        try await Self.append(setup, count: 1)
        #expect(try await Self.attempt(Self.dispatcher(setup, allowPrivate: false)) == 1)
        let row = try await Self.row(setup, id)
        let reason = try #require(try row.decode("last_failure_reason", as: String?.self))
        if pattern.hasPrefix("http:") {
            #expect(reason == "refused http:// (only https:// is allowed)")
        } else {
            #expect(reason.hasPrefix("refused address "), "\(reason)")
            #expect(reason.hasSuffix("(loopback)"), "\(reason)")
        }
        #expect(try row.decode("last_failure_status", as: Int?.self) == nil)
        #expect(try row.decode("failed_attempts", as: Int.self) == 1)
        #expect(receiver.received.isEmpty)
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    /// A row stored before hosts were checked (here by SQL): libcurl would decode `%31` and
    /// connect to the receiver; the dispatcher refuses the URL instead, with no POST, and records
    /// the failure like any refused send, whether private addresses are allowed or not.
    @Test(arguments: [true, false])
    func aStoredURLWithAHostLibcurlWouldRewriteGetsNoPost(_ allowPrivate: Bool) async throws {
        let setup = try await Self.setup()
        let receiver = try WebhookReceiver()
        let id = try await Self.webhook(setup, url: "http://127.0.0.%31:\(receiver.port)/hooks")
        try await Self.append(setup, count: 1)
        #expect(try await Self.attempt(Self.dispatcher(setup, allowPrivate: allowPrivate)) == 1)
        let row = try await Self.row(setup, id)
        #expect(try row.decode("last_failure_reason", as: String?.self) == "refused url: \(WebhookURL.Problem.badHost.message)")
        #expect(try row.decode("last_failure_status", as: Int?.self) == nil)
        #expect(try row.decode("failed_attempts", as: Int.self) == 1)
        #expect(receiver.received.isEmpty)
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    /// Twenty hanging endpoints of one app hold only that app's share of the slots: another
    /// app's endpoint is claimed while none of them has answered.
    @Test func oneAppsSlowEndpointsCannotHoldEverySlot() async throws {
        let setup = try await Self.setup()
        let otherApp = try await setup.app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other")).app.id
        let slow = try WebhookReceiver()
        slow.hold()
        let fast = try WebhookReceiver()
        for index in 0..<20 { _ = try await Self.webhook(setup, url: slow.url + "/\(index)") }
        _ = try await Self.webhook(setup, appID: otherApp, url: fast.url)
        let dispatcher = Self.dispatcher(setup, timeout: .seconds(600))
        #expect(dispatcher.perAppConcurrency == 2)
        dispatcher.start()
        try await Self.append(setup, count: 1)
        // The slow app has taken what it may: its share, not the eight slots.
        #expect(await slow.wait { $0.count >= dispatcher.perAppConcurrency })
        try await Self.append(setup, count: 1, appID: otherApp)
        #expect(await fast.wait { $0.count == 1 })
        // None of the slow requests had been answered, and no more of them had started.
        #expect(slow.answered == 0, "the other app's event waited for the slow endpoints")
        #expect(slow.received.count == dispatcher.perAppConcurrency)
        slow.release()
        await dispatcher.stop()
        await slow.shutdown()
        await fast.shutdown()
        await setup.client.shutdown()
    }

    /// getaddrinfo has no timeout: a lookup that never answers ends the attempt's wait at the
    /// deadline (here while the lookup is still blocked), as a failure naming the host.
    @Test func resolvingAHostStopsWaitingAtItsDeadline() async {
        let release = DispatchSemaphore(value: 0)
        let result = await WebhookHostResolver.resolve(host: "never.example", port: 443, timeout: .milliseconds(200)) { _, _ in
            // Blocked until the test is done with it (a minute at most).
            _ = release.wait(timeout: .now() + 60)
            return .success([NetworkAddress("93.184.216.34")!])
        }
        release.signal()
        guard case .failure(let failure) = result else {
            Issue.record("resolved \(result) past the deadline")
            return
        }
        #expect(failure.message == "could not resolve never.example: no answer within 0.2 seconds")
    }

    /// The address libcurl connects to is checked as it opens the socket, whatever pinned or
    /// resolved the name: a name pointed at loopback is refused then, with no POST, unless
    /// private targets are allowed (the dispatcher then passes no filter).
    @Test func theAddressCurlConnectsToIsCheckedWhenItConnects() async throws {
        let receiver = try WebhookReceiver()
        let client = try HTTPClient()
        func post(_ filter: HTTPClientRequest.PeerFilter?) async -> Result<HTTPClientResponse, HTTPClientError> {
            await Result { () async throws(HTTPClientError) -> HTTPClientResponse in
                try await client.send(HTTPClientRequest(url: "http://hooks.example.com:\(receiver.port)/hooks", body: Array("{}".utf8),
                                                        pinnedAddresses: ["hooks.example.com:\(receiver.port):127.0.0.1"],
                                                        peerFilter: filter))
            }
        }
        #expect(await post(WebhookDispatcher.publicPeersOnly).failure
                == .refusedAddress("refused address 127.0.0.1 (loopback) when connecting"))
        #expect(receiver.received.isEmpty)
        #expect(try await post(nil).get().status == 200)
        #expect(receiver.received.count == 1)
        #expect(WebhookDispatcher.publicPeersOnly([93, 184, 216, 34]) == nil)
        #expect(WebhookDispatcher.publicPeersOnly([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 0, 0, 1]) != nil)
        #expect(WebhookDispatcher.publicPeersOnly([169, 254, 169, 254]) != nil)
        await receiver.shutdown()
        await client.shutdown()
    }
}

fileprivate extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    init(catching body: () async throws(Failure) -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
