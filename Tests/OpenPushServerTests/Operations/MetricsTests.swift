import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

@Suite struct MetricsTests {
    @Test func countsRequestsByRouteMethodAndStatus() {
        let metrics = Metrics()
        metrics.recordRequest(method: "GET", route: "/health", status: 200, seconds: 0.0004)
        metrics.recordRequest(method: "GET", route: "/health", status: 200, seconds: 0.02)
        metrics.recordRequest(method: "POST", route: "/health", status: 405, seconds: 0.0001)
        let text = metrics.render()
        #expect(text.contains(#"openpush_http_requests_total{method="GET",route="/health",status="200"} 2"#))
        #expect(text.contains(#"openpush_http_requests_total{method="POST",route="/health",status="405"} 1"#))
    }

    @Test func histogramBucketsAreCumulative() {
        let metrics = Metrics()
        metrics.recordRequest(method: "GET", route: "/r", status: 200, seconds: 0.0004)
        metrics.recordRequest(method: "GET", route: "/r", status: 200, seconds: 0.02)
        let text = metrics.render()
        #expect(text.contains(#"openpush_http_request_duration_seconds_bucket{route="/r",le="0.001"} 1"#))
        #expect(text.contains(#"openpush_http_request_duration_seconds_bucket{route="/r",le="0.025"} 2"#))
        #expect(text.contains(#"openpush_http_request_duration_seconds_bucket{route="/r",le="+Inf"} 2"#))
        #expect(text.contains(#"openpush_http_request_duration_seconds_count{route="/r"} 2"#))
    }

    @Test func rendersGaugesAndEscapesLabels() {
        let metrics = Metrics()
        metrics.recordRequest(method: "GET", route: "/a\"b", status: 200, seconds: 0)
        let text = metrics.render(gauges: [("openpush_db_pool_in_use", "In use.", 3)])
        #expect(text.contains(#"route="/a\"b""#))
        #expect(text.contains("# TYPE openpush_db_pool_in_use gauge\nopenpush_db_pool_in_use 3\n"))
    }
}

/// Push attempts and delivery latency are counted per push service: the same kind, state and
/// reason on APNs and on FCM are two series, and FCM's latency has its own histogram.
@Suite struct MetricsByPushServiceTests {
    @Test func pushesAreCountedByService() {
        let metrics = Metrics()
        var tally = Metrics.PushTally()
        tally.add(kind: .device, state: .finished(.accepted), reason: nil, service: .apns)
        tally.add(kind: .device, state: .finished(.accepted), reason: nil, service: .fcm)
        tally.add(kind: .device, state: .finished(.accepted), reason: nil, service: .fcm)
        tally.add(kind: .device, state: .queued, reason: "QUOTA_EXCEEDED", service: .fcm)
        metrics.record(tally)
        metrics.recordPush(kind: .device, state: .finished(.error), reason: "UNREGISTERED", service: .fcm)
        metrics.recordPush(kind: .device, state: .finished(.error), reason: "Unregistered", service: .apns)
        let series = metrics.render().split(separator: "\n").filter { $0.hasPrefix("openpush_pushes_total{") }
        #expect(series == [
            #"openpush_pushes_total{kind="device",state="accepted",reason="",service="apns"} 1"#,
            #"openpush_pushes_total{kind="device",state="error",reason="Unregistered",service="apns"} 1"#,
            #"openpush_pushes_total{kind="device",state="accepted",reason="",service="fcm"} 2"#,
            #"openpush_pushes_total{kind="device",state="error",reason="UNREGISTERED",service="fcm"} 1"#,
            #"openpush_pushes_total{kind="device",state="queued",reason="QUOTA_EXCEEDED",service="fcm"} 1"#,
        ])
    }

    @Test func deliveryLatencyHasAHistogramPerService() {
        let metrics = Metrics()
        var tally = Metrics.PushTally()
        tally.addLatency(0.02, service: .apns)
        tally.addLatency(0.3, service: .fcm)
        tally.addLatency(0.3, service: .fcm)
        metrics.record(tally)
        metrics.recordDeliveryLatency(4, service: .fcm)
        let text = metrics.render()
        #expect(text.contains(#"openpush_delivery_latency_seconds_bucket{service="apns",le="0.025"} 1"#))
        #expect(text.contains(#"openpush_delivery_latency_seconds_count{service="apns"} 1"#))
        #expect(text.contains(#"openpush_delivery_latency_seconds_bucket{service="fcm",le="0.25"} 0"#))
        #expect(text.contains(#"openpush_delivery_latency_seconds_bucket{service="fcm",le="0.5"} 2"#))
        #expect(text.contains(#"openpush_delivery_latency_seconds_bucket{service="fcm",le="+Inf"} 3"#))
        #expect(text.contains(#"openpush_delivery_latency_seconds_sum{service="fcm"} 4.6"#))
        #expect(text.contains(#"openpush_delivery_latency_seconds_count{service="fcm"} 3"#))
    }

    @Test func bothServicesLatencySeriesExistBeforeAnyPush() {
        let text = Metrics().render()
        for service in ["apns", "fcm"] {
            #expect(text.contains("openpush_delivery_latency_seconds_count{service=\"\(service)\"} 0\n"))
        }
    }
}

/// What a client controls cannot grow the series count, and the token closes `/metrics`.
@Suite struct MetricsExposureTests {
    @Test func methodsOutsideTheKnownSetAreCountedAsOther() {
        let metrics = Metrics()
        for method in ["PROPFIND", "X-\(Int.random(in: 0..<1_000_000))", "get", "BREW"] {
            metrics.recordRequest(method: method, route: "unmatched", status: 404, seconds: 0)
        }
        metrics.recordRequest(method: "PATCH", route: "unmatched", status: 404, seconds: 0)
        let series = metrics.render().split(separator: "\n").filter { $0.hasPrefix("openpush_http_requests_total{") }
        #expect(series == [#"openpush_http_requests_total{method="OTHER",route="unmatched",status="404"} 4"#,
                           #"openpush_http_requests_total{method="PATCH",route="unmatched",status="404"} 1"#])
    }

    @Test func aRequestWithAnInventedMethodIsOther() async throws {
        let app = try await TestApp.make()
        #expect(await app.request(HTTPMethod(rawValue: "PROPFIND"), "/health").status == 405)
        #expect(await app.request(HTTPMethod(rawValue: "SPAM123"), "/nope").status == 404)
        let text = await app.request(.get, "/metrics").text
        #expect(text.contains(#"openpush_http_requests_total{method="OTHER",route="/health",status="405"} 1"#))
        #expect(text.contains(#"openpush_http_requests_total{method="OTHER",route="unmatched",status="404"} 1"#))
        #expect(!text.contains("PROPFIND") && !text.contains("SPAM123"))
    }

    @Test func theTokenIsRequiredOnlyWhenConfigured() async throws {
        let token = "scrape-me-\(Int.random(in: 1000...9999))"
        let closed = try await TestApp.make(configure: { $0.metricsToken = token })
        for authorization in [nil, "Bearer wrong", "Bearer \(token)x", "Basic \(token)", "Key \(token)", token] as [String?] {
            var headers = HTTPHeaders()
            if let authorization { headers.add(name: "Authorization", value: authorization) }
            let refused = await closed.request(.get, "/metrics", headers: headers)
            #expect(refused.status == 401, "\(authorization ?? "none")")
            #expect(refused.json == ["errors": [.string(MetricsAccess.badToken)]])
            #expect(refused.headers["WWW-Authenticate"] == "Bearer")
        }
        for authorization in ["Bearer \(token)", "bearer \(token)"] {
            let scraped = await closed.request(.get, "/metrics", headers: ["Authorization": authorization])
            #expect(scraped.status == 200)
            #expect(scraped.text.contains("openpush_db_pool_size "))
        }
        let open = try TestApp.make(conninfo: closed.conninfo)
        #expect(await open.request(.get, "/metrics").status == 200)
        await open.services.database.close()
    }

    @Test func theTokenComesFromTheEnvironment() throws {
        #expect(try Configuration.fromEnvironment(["OPENPUSH_METRICS_TOKEN": " abc "]).metricsToken == "abc")
        #expect(try Configuration.fromEnvironment([:]).metricsToken == nil)
        #expect(Configuration.documentation.contains { $0.name == "OPENPUSH_METRICS_TOKEN" })
    }
}

/// `/metrics` serves the figures only PostgreSQL knows as the maintenance loop last read them:
/// a scrape runs no query, so it answers, with them, while the database is out of reach.
@Suite struct MetricsDatabaseFiguresTests {
    @Test func aScrapeRunsNoQueryAndAnswersWhileTheDatabaseIsClosed() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        try await app.services.database.query("""
            INSERT INTO webhooks (id, app_id, url, events, secret)
            VALUES ('whk_metrics', \(created.app.id), 'https://hooks.example.com/', '{*}', 'whsec_x')
            """)
        try await app.services.database.transaction {
            try EventOutbox.append([OutboundEvent(type: .click, appID: created.app.id, data: [:])], in: $0)
        }
        // Not read yet: unknown, not a query of its own.
        var text = await app.request(.get, "/metrics").text
        #expect(text.contains("openpush_delivery_queue_depth -1\n"))
        #expect(text.contains("openpush_database_figures_age_seconds -1\n"))
        #expect(!text.contains("openpush_webhook_events_pending{"))

        try await Maintenance.refreshMetrics(app.services)
        await app.services.database.close()
        let scraped = await app.request(.get, "/metrics")
        #expect(scraped.status == 200)
        text = scraped.text
        #expect(text.contains("openpush_delivery_queue_depth 0\n"))
        #expect(text.contains("openpush_webhook_events_pending{app=\"\(created.app.id)\"} 1\n"))
        let age = text.split(separator: "\n").first { $0.hasPrefix("openpush_database_figures_age_seconds ") }
            .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        #expect(age.map { $0 >= 0 } == true)

        // A read that fails leaves them unknown rather than stale.
        await #expect(throws: (any Error).self) { try await Maintenance.refreshMetrics(app.services) }
        text = await app.request(.get, "/metrics").text
        #expect(text.contains("openpush_delivery_queue_depth -1\n"))
        #expect(!text.contains("openpush_webhook_events_pending{"))
    }
}
