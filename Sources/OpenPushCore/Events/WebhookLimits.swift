/// What one app may hold and ask of its webhook endpoints, so that no app's endpoints can crowd
/// out another's: a bounded number of endpoints, and test pings at a bounded rate.
package enum WebhookLimits {
    /// Endpoints one app may have at once; deleting one frees a place.
    package static let endpointsPerApp = 20
    package static let tooManyEndpoints =
        "an app may have at most \(endpointsPerApp) webhook endpoints: delete one to add another"

    /// Test pings (`POST …/webhooks/{id}/test`) one endpoint may queue within `testWindow` seconds.
    package static let testsPerWindow = 10
    package static let testWindow: Double = 60
    package static let tooManyTests =
        "at most \(testsPerWindow) test pings a minute per webhook endpoint: try again after Retry-After seconds"

    /// Whole seconds until the endpoint may queue another test ping, or nil when it may now.
    /// `sentAt` holds the times of its admitted pings (any order; those out of the window are ignored).
    package static func testRetryAfter(sentAt: [Double], now: Double) -> Int? {
        // The same sliding window as a link code's failures: so many events within so long.
        LinkFailureLimit(failures: testsPerWindow, window: testWindow).retryAfter(failedAt: sentAt, now: now)
    }
}
