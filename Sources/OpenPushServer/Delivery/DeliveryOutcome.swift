import OpenPushCore

/// What an attempt's result means for its row, and for the tokens and app behind it. Pure.
enum DeliveryOutcome {
    enum SideEffect: Sendable, Equatable {
        /// APNs says the token is dead: what dies depends on the token's kind (see `TokenDeath`).
        /// `invalidSince` is Apple's 410 `timestamp` (unix seconds), when it gave one.
        case deadToken(ClaimedDelivery, invalidSince: Double?)
        /// The app's credentials were rejected: its deliveries wait until they are fixed.
        case pauseApp(appID: String, reason: String)
    }

    static func decide(_ delivery: ClaimedDelivery, verdict: DeliveryVerdict, invalidSince: Double? = nil,
                       policy: RetryPolicy, now: Double, jitter: Double) -> (DeliveryUpdate, SideEffect?) {
        switch verdict {
        case .accepted:
            return (DeliveryUpdate(id: delivery.id, state: .accepted), nil)
        case .deadToken(let reason):
            return (DeliveryUpdate(id: delivery.id, state: .error, reason: reason.rawValue), .deadToken(delivery, invalidSince: invalidSince))
        case .credentials(let reason):
            return (paused(delivery, reason: reason.rawValue), .pauseApp(appID: delivery.appID, reason: reason.rawValue))
        case .permanent(let reason):
            return (DeliveryUpdate(id: delivery.id, state: .error, reason: reason.rawValue), nil)
        case .retry(let reason):
            return (retry(delivery, reason: reason.rawValue, policy: policy, now: now, jitter: jitter), nil)
        case .refreshTokenAndRetry:
            // The client already refreshed its token and retried once; try again later.
            return (retry(delivery, reason: APNSReason.expiredProviderToken.rawValue, policy: policy, now: now, jitter: jitter), nil)
        }
    }

    /// A transport failure (no answer): always worth another try, until attempts run out.
    static func retry(_ delivery: ClaimedDelivery, reason: String, policy: RetryPolicy, now: Double, jitter: Double) -> DeliveryUpdate {
        guard let delay = policy.delay(afterAttempt: delivery.attempts, jitter: jitter) else {
            return DeliveryUpdate(id: delivery.id, state: .error, reason: reason)
        }
        return DeliveryUpdate(id: delivery.id, state: .queued, reason: reason, nextAttemptAt: now + delay)
    }

    /// Back in the queue, untried: it goes out when the app is resumed.
    static func paused(_ delivery: ClaimedDelivery, reason: String) -> DeliveryUpdate {
        DeliveryUpdate(id: delivery.id, state: .queued, reason: reason, refundAttempt: true)
    }
}
