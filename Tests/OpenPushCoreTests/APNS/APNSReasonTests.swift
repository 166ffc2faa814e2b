import Testing
import OpenPushCore

@Suite struct APNSReasonTests {
    /// Apple's reason strings, spelled as Apple spells them.
    static let appleSpellings = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken", "Unregistered",
        "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError",
        "ServiceUnavailable", "Shutdown",
    ]

    @Test func theCatalogueHoldsEveryDocumentedReasonOnce() {
        let raw = APNSReason.documented.map(\.reason.rawValue)
        #expect(raw == Self.appleSpellings)
        #expect(Set(raw).count == raw.count)
    }

    @Test func staticMembersSpellTheWireStrings() {
        #expect(APNSReason.badCollapseID.rawValue == "BadCollapseId")
        #expect(APNSReason.badMessageID.rawValue == "BadMessageId")
        #expect(APNSReason.unrelatedKeyIDInToken.rawValue == "UnrelatedKeyIdInToken")
        #expect(APNSReason(rawValue: "Unregistered") == .unregistered)
        #expect(APNSReason.unregistered.documentedStatus == 410)
        #expect(APNSReason.idleTimeout.documentedStatus == 400)
        #expect(APNSReason("SomethingNew").documentedStatus == nil)
    }

    @Test(arguments: ["Unregistered", "ExpiredToken", "BadDeviceToken"])
    func deadTokenReasons(_ raw: String) {
        let reason = APNSReason(raw)
        #expect(reason.isTokenDead)
        #expect(reason.isPermanent)
        #expect(!reason.isCredentialProblem && !reason.isRetryable)
    }

    @Test(arguments: [
        "InvalidProviderToken", "BadCertificate", "BadCertificateEnvironment", "Forbidden",
        "MissingProviderToken", "UnrelatedKeyIdInToken",
    ])
    func credentialReasons(_ raw: String) {
        let reason = APNSReason(raw)
        #expect(reason.isCredentialProblem)
        #expect(reason.isPermanent)
        #expect(!reason.isTokenDead && !reason.isRetryable && !reason.isExpiredProviderToken)
    }

    @Test(arguments: [
        "TooManyRequests", "TooManyProviderTokenUpdates", "InternalServerError", "ServiceUnavailable",
        "Shutdown", "IdleTimeout",
    ])
    func retryableReasons(_ raw: String) {
        let reason = APNSReason(raw)
        #expect(reason.isRetryable)
        #expect(!reason.isPermanent && !reason.isTokenDead && !reason.isCredentialProblem)
    }

    @Test func anExpiredProviderTokenIsNeitherPermanentNorACredentialProblem() {
        #expect(APNSReason.expiredProviderToken.isExpiredProviderToken)
        #expect(!APNSReason.expiredProviderToken.isPermanent)
        #expect(!APNSReason.expiredProviderToken.isCredentialProblem)
        #expect(!APNSReason.expiredProviderToken.isRetryable)
    }

    @Test(arguments: [
        "BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic", "DeviceTokenNotForTopic",
        "DuplicateHeaders", "InvalidPushType", "MissingDeviceToken", "MissingTopic", "PayloadEmpty",
        "TopicDisallowed", "BadPath", "MethodNotAllowed", "PayloadTooLarge", "SomethingAppleAddsLater",
    ])
    func everythingElseIsPermanentAndNothingMore(_ raw: String) {
        let reason = APNSReason(raw)
        #expect(reason.isPermanent)
        #expect(!reason.isRetryable && !reason.isTokenDead && !reason.isCredentialProblem && !reason.isExpiredProviderToken)
    }
}

@Suite struct APNSResponseClassifierTests {
    @Test(arguments: [
        (200, nil, DeliveryVerdict.accepted),
        (200, "Unregistered", .accepted),
        // Dead tokens: 410 whatever the reason, and 400 BadDeviceToken.
        (410, "Unregistered", .deadToken(.unregistered)),
        (410, "ExpiredToken", .deadToken(.expiredToken)),
        (410, nil, .deadToken(.unregistered)),
        (410, "SomethingNew", .deadToken(APNSReason("SomethingNew"))),
        (400, "BadDeviceToken", .deadToken(.badDeviceToken)),
        // The JWT: refresh once; every other 403 is the app's credentials.
        (403, "ExpiredProviderToken", .refreshTokenAndRetry),
        (403, "InvalidProviderToken", .credentials(.invalidProviderToken)),
        (403, "BadCertificate", .credentials(.badCertificate)),
        (403, "BadCertificateEnvironment", .credentials(.badCertificateEnvironment)),
        (403, "Forbidden", .credentials(.forbidden)),
        (403, "MissingProviderToken", .credentials(.missingProviderToken)),
        (403, "UnrelatedKeyIdInToken", .credentials(.unrelatedKeyIDInToken)),
        (403, "SomethingNew", .credentials(APNSReason("SomethingNew"))),
        (403, nil, .credentials(.forbidden)),
        // Transient.
        (429, "TooManyRequests", .retry(.tooManyRequests)),
        (429, "TooManyProviderTokenUpdates", .retry(.tooManyProviderTokenUpdates)),
        (429, nil, .retry(.tooManyRequests)),
        (500, "InternalServerError", .retry(.internalServerError)),
        (500, "", .retry(.internalServerError)),
        (503, "ServiceUnavailable", .retry(.serviceUnavailable)),
        (503, "Shutdown", .retry(.shutdown)),
        (503, nil, .retry(.serviceUnavailable)),
        (502, nil, .retry(APNSReason("HTTP 502"))),
        (400, "IdleTimeout", .retry(.idleTimeout)),
        // Permanent.
        (400, "BadTopic", .permanent(.badTopic)),
        (400, "DeviceTokenNotForTopic", .permanent(.deviceTokenNotForTopic)),
        (400, "TopicDisallowed", .permanent(.topicDisallowed)),
        (400, "BadPriority", .permanent(.badPriority)),
        (400, "PayloadEmpty", .permanent(.payloadEmpty)),
        (400, "SomethingNew", .permanent(APNSReason("SomethingNew"))),
        (400, nil, .permanent(APNSReason("HTTP 400"))),
        (404, "BadPath", .permanent(.badPath)),
        (405, nil, .permanent(.methodNotAllowed)),
        (413, "PayloadTooLarge", .permanent(.payloadTooLarge)),
    ] as [(Int, String?, DeliveryVerdict)])
    func classifies(_ status: Int, _ reason: String?, _ verdict: DeliveryVerdict) {
        #expect(APNSResponseClassifier.classify(status: status, reason: reason) == verdict)
    }

    /// Each documented pair lands where its reason's properties say.
    @Test func everyDocumentedPairAgreesWithItsReason() {
        for (reason, status) in APNSReason.documented {
            let verdict = APNSResponseClassifier.classify(status: status, reason: reason.rawValue)
            let expected: DeliveryVerdict =
                if reason.isExpiredProviderToken { .refreshTokenAndRetry }
                else if reason.isTokenDead { .deadToken(reason) }
                else if reason.isCredentialProblem { .credentials(reason) }
                else if reason.isRetryable { .retry(reason) }
                else { .permanent(reason) }
            #expect(verdict == expected, "\(status) \(reason)")
            #expect(verdict.reason == reason)
        }
    }

    @Test func theVerdictNamesTheReasonItRecords() {
        #expect(DeliveryVerdict.accepted.reason == nil)
        #expect(DeliveryVerdict.refreshTokenAndRetry.reason == .expiredProviderToken)
        #expect(DeliveryVerdict.deadToken(.badDeviceToken).reason == .badDeviceToken)
    }
}
