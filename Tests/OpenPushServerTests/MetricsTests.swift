import Testing
@testable import OpenPushServer

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
