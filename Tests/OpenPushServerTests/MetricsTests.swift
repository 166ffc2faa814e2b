import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport

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
