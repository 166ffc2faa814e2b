/// What an attempt's result means for its recipient, and for the token and app behind it. Pure.
package enum DeliveryOutcome {
    package enum SideEffect: Sendable, Equatable {
        /// APNs says the token is dead: what dies depends on the token's kind (see `TokenDeath`).
        /// `invalidSince` is Apple's 410 `timestamp` (unix seconds), when it gave one.
        case deadToken(ClaimedDelivery, invalidSince: Double?)
        /// The app's credentials were rejected: its deliveries wait until they are fixed.
        case pauseApp(appID: String, reason: String)
        /// FCM refused the app's service account: its Android pushes wait until it changes; its
        /// Apple pushes go on.
        case pauseFCM(appID: String, reason: String)
        /// Push services refused the app's VAPID signature (every web push of a job, at least
        /// `DeliveryPlanner.vapidRefusalsToPause`), or its key does not open: its web pushes wait
        /// until its key or subject changes; its other pushes go on.
        case pauseWebPush(appID: String, reason: String)
    }

    package enum Decision: Sendable, Equatable {
        /// Final: recorded now, never tried again.
        case finished(DeliveryState, reason: String?)
        /// A passing failure: into the retry job.
        case retry(reason: String)
        /// Never really tried (the app got paused): back into the queue without using an attempt.
        case held(reason: String)
    }

    /// `retryable` is false for pushes that must not be tried twice (`ttl: 0`); `service` is the
    /// one that answered: a credentials verdict pauses that service of the app.
    package static func decide(_ delivery: ClaimedDelivery, verdict: DeliveryVerdict, invalidSince: Double? = nil,
                       policy: RetryPolicy, retryable: Bool = true, service: PushService = .apns) -> (Decision, SideEffect?) {
        switch verdict {
        case .accepted:
            return (.finished(.accepted, reason: nil), nil)
        case .deadToken(let reason):
            return (.finished(.error, reason: reason.rawValue), .deadToken(delivery, invalidSince: invalidSince))
        // A push service refusing the VAPID signature ends that push (the subscription is kept);
        // whether the app pauses is decided per job (`pausesWebPush`).
        case .credentials(let reason) where service == .webPush:
            return (.finished(.error, reason: reason.rawValue), nil)
        case .credentials(let reason) where service == .fcm:
            return (.held(reason: reason.rawValue), .pauseFCM(appID: delivery.appID, reason: reason.rawValue))
        case .credentials(let reason):
            return (.held(reason: reason.rawValue), .pauseApp(appID: delivery.appID, reason: reason.rawValue))
        // An extra token APNs says is not for its kind's topic was registered as the wrong kind
        // (or for another app): it is dead, as Apple's contract has it for push-to-start tokens.
        case .permanent(let reason) where reason == .deviceTokenNotForTopic && delivery.tokenKind.extraKind != nil:
            return (.finished(.error, reason: reason.rawValue), .deadToken(delivery, invalidSince: invalidSince))
        case .permanent(let reason):
            return (.finished(.error, reason: reason.rawValue), nil)
        case .retry(let reason):
            return (retry(delivery, reason: reason.rawValue, policy: policy, retryable: retryable), nil)
        case .refreshTokenAndRetry:
            // The client already refreshed its token and retried once; try again later.
            return (retry(delivery, reason: APNSReason.expiredProviderToken.rawValue, policy: policy, retryable: retryable), nil)
        }
    }

    /// Whether a job's web pushes pause its app's web push: all `refused` for their VAPID
    /// signature, and at least `DeliveryPlanner.vapidRefusalsToPause` of them. Fewer is too
    /// little to tell a bad key from a few odd subscriptions.
    package static func pausesWebPush(webPushes: Int, refused: Int) -> Bool {
        refused >= DeliveryPlanner.vapidRefusalsToPause && refused == webPushes
    }

    /// A passing failure (or no answer at all): worth another try, until attempts run out.
    package static func retry(_ delivery: ClaimedDelivery, reason: String, policy: RetryPolicy, retryable: Bool = true) -> Decision {
        guard retryable, delivery.attempts < policy.maxAttempts else { return .finished(.error, reason: reason) }
        return .retry(reason: reason)
    }
}
