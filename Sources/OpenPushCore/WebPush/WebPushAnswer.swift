/// What the worker does with a push service's answer to one Web Push (RFC 8030 §5): a verdict
/// for the delivery row and, for a `429`, how long the service asked to wait. A request that
/// got no answer at all is the transport's `unanswered`, without calling `classify`.
package struct WebPushAnswer: Sendable, Hashable {
    package var verdict: DeliveryVerdict
    /// `Retry-After` in seconds on a `429` (nil: none, or an HTTP date; the usual backoff).
    package var retryAfter: Int?

    /// The reasons a Web Push row records, one per kind of refusal.
    package enum Reason: String, Sendable, CaseIterable {
        /// `404`: the push service does not know the subscription.
        case notFound = "WebPushNotFound"
        /// `410`: the subscription expired or the user unsubscribed.
        case gone = "WebPushGone"
        case badRequest = "WebPushBadRequest"
        /// `413`: the encrypted body is over the service's limit (4,096 bytes).
        case payloadTooLarge = "WebPushPayloadTooLarge"
        /// Any other `4xx`.
        case refused = "WebPushRefused"
        case tooManyRequests = "WebPushTooManyRequests"
        /// Any `5xx`.
        case serverError = "WebPushServerError"
        /// `401`, `403`: the VAPID signature or key is not accepted for this subscription.
        case vapidRefused = "WebPushVAPIDRefused"

        package var apnsReason: APNSReason { APNSReason(rawValue) }
    }

    package init(verdict: DeliveryVerdict, retryAfter: Int? = nil) {
        self.verdict = verdict
        self.retryAfter = retryAfter
    }

    /// Classifies an answer by its HTTP status and `Retry-After` header.
    package static func classify(status: Int, retryAfter: String?) -> WebPushAnswer {
        switch status {
        case 200...299:
            return WebPushAnswer(verdict: .accepted)
        case 404:
            return WebPushAnswer(verdict: .deadToken(Reason.notFound.apnsReason))
        case 410:
            return WebPushAnswer(verdict: .deadToken(Reason.gone.apnsReason))
        case 401, 403:
            return WebPushAnswer(verdict: .credentials(Reason.vapidRefused.apnsReason))
        case 429:
            return WebPushAnswer(verdict: .retry(Reason.tooManyRequests.apnsReason),
                                 retryAfter: FCMAnswer.retryAfterSeconds(retryAfter))
        case 400:
            return WebPushAnswer(verdict: .permanent(Reason.badRequest.apnsReason))
        case 413:
            return WebPushAnswer(verdict: .permanent(Reason.payloadTooLarge.apnsReason))
        case 500...599:
            return WebPushAnswer(verdict: .retry(Reason.serverError.apnsReason))
        default:
            // Another 4xx, or a status no push service sends (1xx, 3xx): this request will not do.
            return WebPushAnswer(verdict: .permanent(Reason.refused.apnsReason))
        }
    }
}
