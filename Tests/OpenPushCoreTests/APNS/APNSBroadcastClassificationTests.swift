import Testing
import OpenPushCore

/// A broadcast's answers go through the classifier device pushes use: no rule of their own.
@Suite struct APNSBroadcastClassificationTests {
    @Test(arguments: [
        (200, nil, .accepted),
        // The channel is gone at APNs: dead, as a 410 is for a token.
        (400, "ChannelNotRegistered", .deadToken(.channelNotRegistered)),
        // Passing: tried again.
        (429, "TooManyRequests", .retry(.tooManyRequests)),
        (500, "InternalServerError", .retry(.internalServerError)),
        (503, nil, .retry(.serviceUnavailable)),
        (502, nil, .retry(APNSReason("HTTP 502"))),
        // The app's credentials: the app pauses, as for device pushes.
        (403, "InvalidProviderToken", .credentials(.invalidProviderToken)),
        (403, nil, .credentials(.forbidden)),
        (403, "ExpiredProviderToken", .refreshTokenAndRetry),
        // Anything else fails for good.
        (400, "FeatureNotEnabled", .permanent(APNSReason("FeatureNotEnabled"))),
        (400, "BadChannelId", .permanent(APNSReason("BadChannelId"))),
        (413, "PayloadTooLarge", .permanent(.payloadTooLarge)),
    ] as [(Int, String?, DeliveryVerdict)])
    func classifies(_ status: Int, _ reason: String?, _ verdict: DeliveryVerdict) {
        #expect(APNSResponseClassifier.classify(status: status, reason: reason) == verdict)
    }

    static let channel = ClaimedDelivery(id: 0, apnsID: "a", messageID: "msg_1", appID: "app_1", subscriptionID: "chn_1",
                                         liveActivityID: nil, tokenKind: .channel, token: "dW5rbm93bg==", badge: nil,
                                         attempts: 1, createdAt: 0)

    @Test func channelNotRegisteredEndsTheBroadcastAndKillsTheChannel() {
        let verdict = APNSResponseClassifier.classify(status: 400, reason: "ChannelNotRegistered")
        let (decision, effect) = DeliveryOutcome.decide(Self.channel, verdict: verdict, policy: RetryPolicy())
        #expect(decision == .finished(.error, reason: "ChannelNotRegistered"))
        #expect(effect == .deadToken(Self.channel, invalidSince: nil))
        #expect(APNSReason.channelNotRegistered.isTokenDead && APNSReason.channelNotRegistered.isPermanent)
    }

    @Test func aPassingAnswerIsRetriedUntilAttemptsRunOut() {
        let verdict = APNSResponseClassifier.classify(status: 429, reason: "TooManyRequests")
        let policy = RetryPolicy(maxAttempts: 2, baseDelay: 1, maxDelay: 1)
        #expect(DeliveryOutcome.decide(Self.channel, verdict: verdict, policy: policy).0 == .retry(reason: "TooManyRequests"))
        var last = Self.channel
        last.attempts = 2
        #expect(DeliveryOutcome.decide(last, verdict: verdict, policy: policy).0 == .finished(.error, reason: "TooManyRequests"))
    }

    @Test func aCredentialAnswerHoldsTheBroadcastAndPausesTheApp() {
        let verdict = APNSResponseClassifier.classify(status: 403, reason: "InvalidProviderToken")
        let (decision, effect) = DeliveryOutcome.decide(Self.channel, verdict: verdict, policy: RetryPolicy())
        #expect(decision == .held(reason: "InvalidProviderToken"))
        #expect(effect == .pauseApp(appID: "app_1", reason: "InvalidProviderToken"))
    }

    @Test func theRowStateOfAFinishedBroadcast() {
        #expect(BroadcastState(finished: .accepted) == .accepted)
        #expect(BroadcastState(finished: .error) == .error)
        #expect(BroadcastState(finished: .cancelled) == .cancelled)
        #expect(BroadcastState(finished: .suppressed) == nil && BroadcastState(finished: .superseded) == nil)
        #expect(BroadcastState.allCases.map(\.rawValue) == ["queued", "accepted", "error", "cancelled"])
    }
}
