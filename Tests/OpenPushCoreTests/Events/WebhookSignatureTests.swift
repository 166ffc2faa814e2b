import OpenPushCore
import Testing

@Suite struct WebhookSignatureTests {
    @Test func headerAndPayload() {
        #expect(WebhookSignature.signedPayload(timestamp: 1_700_000_000, body: Array("{}".utf8)) == Array("1700000000.{}".utf8))
        #expect(WebhookSignature.header(timestamp: 5, signatures: ["aa", "bb"]) == "t=5,v1=aa,v1=bb")
        #expect(WebhookSignature.header(timestamp: 5, signatures: ["aa"]) == "t=5,v1=aa")
    }

    @Test func thePreviousSecretSignsUntilItsEnd() {
        #expect(WebhookSignature.signingSecrets(current: "new", previous: "old", previousUntil: 100, now: 99) == ["new", "old"])
        #expect(WebhookSignature.signingSecrets(current: "new", previous: "old", previousUntil: 100, now: 100) == ["new"])
        #expect(WebhookSignature.signingSecrets(current: "new", previous: nil, previousUntil: nil, now: 0) == ["new"])
        #expect(WebhookSignature.signingSecrets(current: "new", previous: "old", previousUntil: nil, now: 0) == ["new"])
    }

    @Test func parse() throws {
        let parsed = try #require(WebhookSignature.parse("t=12,v1=ab,v1=cd"))
        #expect(parsed.timestamp == 12)
        #expect(parsed.signatures == ["ab", "cd"])
        #expect(WebhookSignature.parse("v1=ab") == nil)
        #expect(WebhookSignature.parse("t=12") == nil)
    }
}

@Suite struct WebhookRetryScheduleTests {
    @Test func doublesFromFiveSecondsToAnHourWithJitter() {
        let schedule = WebhookRetrySchedule()
        #expect(schedule.delay(afterFailures: 1, jitter: 1) == 5)
        #expect(schedule.delay(afterFailures: 1, jitter: 0) == 2.5)
        #expect(schedule.delay(afterFailures: 2, jitter: 1) == 10)
        #expect(schedule.delay(afterFailures: 5, jitter: 1) == 80)
        #expect(schedule.delay(afterFailures: 10, jitter: 1) == 2560)
        #expect(schedule.delay(afterFailures: 11, jitter: 1) == 3600)
        #expect(schedule.delay(afterFailures: 500, jitter: 0.5) == 2700)
        #expect(schedule.delay(afterFailures: 3, jitter: 0.5) == 15)
    }

    @Test func givesUpAfterTwentyFourHours() {
        let schedule = WebhookRetrySchedule()
        #expect(!schedule.isExhausted(failingSince: 0, now: 86_400))
        #expect(schedule.isExhausted(failingSince: 0, now: 86_401))
        #expect(WebhookRetrySchedule.disabledReason(lastFailure: "last status 500") == "failing for 24 hours: last status 500")
    }

    @Test func afterAFailureRetriesAtTheBackoffUntilTheWindowEnds() {
        let schedule = WebhookRetrySchedule()
        // The first failure of a streak: the shortest backoff, whatever count was left behind.
        #expect(schedule.afterFailure(previousFailures: 0, failingSince: nil, now: 1000, jitter: 1) == .retry(after: 5))
        #expect(schedule.afterFailure(previousFailures: 7, failingSince: nil, now: 1000, jitter: 1) == .retry(after: 5))
        #expect(schedule.afterFailure(previousFailures: 1, failingSince: 1000, now: 1005, jitter: 1) == .retry(after: 10))
        #expect(schedule.afterFailure(previousFailures: 3, failingSince: 1000, now: 1100, jitter: 0.5) == .retry(after: 30))
        // Up to the end of the window it still retries, at the cap; past it, it gives up.
        #expect(schedule.afterFailure(previousFailures: 40, failingSince: 1000, now: 1000 + 86_400, jitter: 1) == .retry(after: 3600))
        #expect(schedule.afterFailure(previousFailures: 40, failingSince: 1000, now: 1000 + 86_400.5, jitter: 1) == .disable)
    }

    @Test func aStreakOfFailuresEveryBackoffApartIsDisabledAfterADay() {
        // Walking the clock from one attempt to the next: about 41 attempts at half jitter.
        let schedule = WebhookRetrySchedule()
        var now = 0.0, failures = 0, failingSince: Double? = nil
        var attempts = 0
        while true {
            attempts += 1
            let decision = schedule.afterFailure(previousFailures: failures, failingSince: failingSince, now: now, jitter: 0.5)
            guard case .retry(let delay) = decision else { break }
            failingSince = failingSince ?? now
            failures += 1
            now += delay
        }
        #expect(now > 86_400 && now < 86_400 + 2700)
        #expect(attempts == 42)
    }
}

@Suite struct WebhookTargetTests {
    @Test(arguments: [
        ("https://example.com/hooks", WebhookTarget(scheme: "https", host: "example.com", port: 443)),
        ("http://Example.COM:8080", WebhookTarget(scheme: "http", host: "example.com", port: 8080)),
        ("https://user:pw@example.com:9/x?y#z", WebhookTarget(scheme: "https", host: "example.com", port: 9)),
        ("https://[::1]:8443/x", WebhookTarget(scheme: "https", host: "::1", port: 8443)),
        ("https://[2001:db8::1]/x", WebhookTarget(scheme: "https", host: "2001:db8::1", port: 443)),
        ("http://127.0.0.1:1/", WebhookTarget(scheme: "http", host: "127.0.0.1", port: 1)),
    ])
    func parses(_ url: String, _ target: WebhookTarget) {
        #expect(WebhookTarget(url: url) == target)
    }

    @Test func refuses() {
        for url in ["ftp://example.com", "example.com", "https://", "https://:80/", "https://h:0/", "https://h:70000/", "https://[::1"] {
            #expect(WebhookTarget(url: url) == nil, "\(url)")
        }
        #expect(WebhookTarget(url: "https://[::1]:1")?.resolveHost == "[::1]")
    }
}
