import OpenPushCore
import Testing

/// Each row of the Web Push outcomes table: the push service's status (and `Retry-After`) to
/// the verdict and reason the delivery row records.
@Suite struct WebPushAnswerTests {
    @Test(arguments: [
        (201, DeliveryVerdict.accepted),
        (202, .accepted),
        (404, .deadToken(APNSReason("WebPushNotFound"))),
        (410, .deadToken(APNSReason("WebPushGone"))),
        (400, .permanent(APNSReason("WebPushBadRequest"))),
        (413, .permanent(APNSReason("WebPushPayloadTooLarge"))),
        (422, .permanent(APNSReason("WebPushRefused"))),
        (301, .permanent(APNSReason("WebPushRefused"))),
        (429, .retry(APNSReason("WebPushTooManyRequests"))),
        (500, .retry(APNSReason("WebPushServerError"))),
        (503, .retry(APNSReason("WebPushServerError"))),
        (401, .credentials(APNSReason("WebPushVAPIDRefused"))),
        (403, .credentials(APNSReason("WebPushVAPIDRefused"))),
    ])
    func statusesAreClassified(status: Int, verdict: DeliveryVerdict) {
        #expect(WebPushAnswer.classify(status: status, retryAfter: nil) == WebPushAnswer(verdict: verdict))
    }

    @Test func retryAfterIsReadOnA429Only() {
        #expect(WebPushAnswer.classify(status: 429, retryAfter: " 30 ").retryAfter == 30)
        #expect(WebPushAnswer.classify(status: 429, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT").retryAfter == nil)
        #expect(WebPushAnswer.classify(status: 503, retryAfter: "30").retryAfter == nil)
    }

    @Test func reasonsAreSpelledAsRecorded() {
        #expect(WebPushAnswer.Reason.allCases.map(\.rawValue) == [
            "WebPushNotFound", "WebPushGone", "WebPushBadRequest", "WebPushPayloadTooLarge", "WebPushRefused",
            "WebPushTooManyRequests", "WebPushServerError", "WebPushVAPIDRefused",
        ])
    }
}
