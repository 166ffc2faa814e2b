import OpenPushCore

/// What one push's attempt came to, as its transport's classifier read it.
enum PushOutcome: Sendable {
    /// The service answered (accepted or refused).
    case answered(Answer)
    /// No answer at all. `permanent`: the same request fails the same way every time (a header
    /// the client cannot carry), so it is not tried again.
    case unanswered(reason: String, permanent: Bool)

    struct Answer: Sendable {
        var status: Int
        var verdict: DeliveryVerdict
        /// When the service learned the token died (APNs' 410 `timestamp`), unix seconds.
        var invalidSince: Double?
        /// The request's id as the service echoed it (`apns-request-id` for a broadcast).
        var requestID: String?
        /// `apns-unique-id`, sent by the sandbox servers for looking a push up in Apple's console.
        var uniqueID: String?
        /// FCM's message name (`projects/…/messages/…`) of an accepted push.
        var messageName: String? = nil
        /// The service that answered: a `credentials` verdict pauses that service of the app.
        var service: PushService = .apns
        /// Seconds the service asked to wait before the next try (FCM's `Retry-After` on a `429`).
        var retryAfter: Double? = nil
        /// The service's own words about a refusal (FCM's `error.message`), beside the reason code.
        var detail: String? = nil
    }

    /// The reason a delivery row or event gives for this outcome; nil when accepted.
    var reason: String? {
        switch self {
        case .answered(let answer): answer.verdict.reason?.rawValue
        case .unanswered(let reason, _): reason
        }
    }

    var status: Int? {
        if case .answered(let answer) = self { return answer.status }
        return nil
    }
}
