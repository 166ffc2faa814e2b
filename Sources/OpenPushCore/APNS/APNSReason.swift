/// A reason string APNs puts in the JSON body of a rejection (`{"reason": "BadDeviceToken"}`).
/// An open list: Apple adds reasons, and an unknown one must still travel as a value.
package struct APNSReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    // 400
    package static let badCollapseID = APNSReason("BadCollapseId")
    package static let badDeviceToken = APNSReason("BadDeviceToken")
    package static let badExpirationDate = APNSReason("BadExpirationDate")
    package static let badMessageID = APNSReason("BadMessageId")
    package static let badPriority = APNSReason("BadPriority")
    package static let badTopic = APNSReason("BadTopic")
    package static let deviceTokenNotForTopic = APNSReason("DeviceTokenNotForTopic")
    package static let duplicateHeaders = APNSReason("DuplicateHeaders")
    package static let idleTimeout = APNSReason("IdleTimeout")
    package static let invalidPushType = APNSReason("InvalidPushType")
    package static let missingDeviceToken = APNSReason("MissingDeviceToken")
    package static let missingTopic = APNSReason("MissingTopic")
    package static let payloadEmpty = APNSReason("PayloadEmpty")
    package static let topicDisallowed = APNSReason("TopicDisallowed")
    /// A broadcast's: the channel is gone at APNs (deleted, or never made in that environment).
    package static let channelNotRegistered = APNSReason("ChannelNotRegistered")
    // 403
    package static let badCertificate = APNSReason("BadCertificate")
    package static let badCertificateEnvironment = APNSReason("BadCertificateEnvironment")
    package static let expiredProviderToken = APNSReason("ExpiredProviderToken")
    package static let forbidden = APNSReason("Forbidden")
    package static let invalidProviderToken = APNSReason("InvalidProviderToken")
    package static let missingProviderToken = APNSReason("MissingProviderToken")
    package static let unrelatedKeyIDInToken = APNSReason("UnrelatedKeyIdInToken")
    // 404, 405
    package static let badPath = APNSReason("BadPath")
    package static let methodNotAllowed = APNSReason("MethodNotAllowed")
    // 410
    package static let expiredToken = APNSReason("ExpiredToken")
    package static let unregistered = APNSReason("Unregistered")
    // 413
    package static let payloadTooLarge = APNSReason("PayloadTooLarge")
    // 429
    package static let tooManyProviderTokenUpdates = APNSReason("TooManyProviderTokenUpdates")
    package static let tooManyRequests = APNSReason("TooManyRequests")
    // 500, 503
    package static let internalServerError = APNSReason("InternalServerError")
    package static let serviceUnavailable = APNSReason("ServiceUnavailable")
    package static let shutdown = APNSReason("Shutdown")

    /// Every reason Apple documents, with the status it comes with. The simulator answers with
    /// these pairs; the classifier does not need them (it reads the status it was given).
    package static let documented: [(reason: APNSReason, status: Int)] = [
        (.badCollapseID, 400), (.badDeviceToken, 400), (.badExpirationDate, 400), (.badMessageID, 400),
        (.badPriority, 400), (.badTopic, 400), (.deviceTokenNotForTopic, 400), (.duplicateHeaders, 400),
        (.idleTimeout, 400), (.invalidPushType, 400), (.missingDeviceToken, 400), (.missingTopic, 400),
        (.payloadEmpty, 400), (.topicDisallowed, 400),
        (.badCertificate, 403), (.badCertificateEnvironment, 403), (.expiredProviderToken, 403),
        (.forbidden, 403), (.invalidProviderToken, 403), (.missingProviderToken, 403),
        (.unrelatedKeyIDInToken, 403),
        (.badPath, 404), (.methodNotAllowed, 405),
        (.expiredToken, 410), (.unregistered, 410),
        (.payloadTooLarge, 413),
        (.tooManyProviderTokenUpdates, 429), (.tooManyRequests, 429),
        (.internalServerError, 500), (.serviceUnavailable, 503), (.shutdown, 503),
    ]

    /// The status Apple documents for this reason; `nil` for a reason it does not document.
    package var documentedStatus: Int? {
        Self.documented.first { $0.reason == self }?.status
    }

    /// The token will never work again: forget it (by kind — see the reference's "Lifecycle").
    /// A broadcast's channel that APNs no longer knows is dead the same way.
    package var isTokenDead: Bool {
        self == .unregistered || self == .expiredToken || self == .badDeviceToken || self == .channelNotRegistered
    }

    /// The app's credentials are wrong: every push of that app would fail the same way, so the
    /// app's deliveries pause until its credentials change.
    package var isCredentialProblem: Bool {
        Self.credentialReasons.contains(self)
    }

    /// The JWT is too old: sign a new one and send the same request again, once.
    package var isExpiredProviderToken: Bool { self == .expiredProviderToken }

    /// Worth sending again later, unchanged. `TooManyProviderTokenUpdates` is a `429` like
    /// `TooManyRequests`: the token itself is good, only its rotation came too soon.
    package var isRetryable: Bool {
        Self.retryableReasons.contains(self)
    }

    /// Never sent again as it is. Includes dead tokens and credential problems (the row is not
    /// retried; what happens to the token or the app is the verdict's business).
    package var isPermanent: Bool { !isRetryable && !isExpiredProviderToken }

    private static let credentialReasons: Set<APNSReason> = [
        .invalidProviderToken, .badCertificate, .badCertificateEnvironment, .forbidden,
        .missingProviderToken, .unrelatedKeyIDInToken,
    ]

    private static let retryableReasons: Set<APNSReason> = [
        .tooManyRequests, .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable,
        .shutdown, .idleTimeout,
    ]
}
