/// A reason string APNs puts in the JSON body of a rejection (`{"reason": "BadDeviceToken"}`).
/// An open list: Apple adds reasons, and an unknown one must still travel as a value.
public struct APNSReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    // 400
    public static let badCollapseID = APNSReason("BadCollapseId")
    public static let badDeviceToken = APNSReason("BadDeviceToken")
    public static let badExpirationDate = APNSReason("BadExpirationDate")
    public static let badMessageID = APNSReason("BadMessageId")
    public static let badPriority = APNSReason("BadPriority")
    public static let badTopic = APNSReason("BadTopic")
    public static let deviceTokenNotForTopic = APNSReason("DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNSReason("DuplicateHeaders")
    public static let idleTimeout = APNSReason("IdleTimeout")
    public static let invalidPushType = APNSReason("InvalidPushType")
    public static let missingDeviceToken = APNSReason("MissingDeviceToken")
    public static let missingTopic = APNSReason("MissingTopic")
    public static let payloadEmpty = APNSReason("PayloadEmpty")
    public static let topicDisallowed = APNSReason("TopicDisallowed")
    /// A broadcast's: the channel is gone at APNs (deleted, or never made in that environment).
    public static let channelNotRegistered = APNSReason("ChannelNotRegistered")
    // 403
    public static let badCertificate = APNSReason("BadCertificate")
    public static let badCertificateEnvironment = APNSReason("BadCertificateEnvironment")
    public static let expiredProviderToken = APNSReason("ExpiredProviderToken")
    public static let forbidden = APNSReason("Forbidden")
    public static let invalidProviderToken = APNSReason("InvalidProviderToken")
    public static let missingProviderToken = APNSReason("MissingProviderToken")
    public static let unrelatedKeyIDInToken = APNSReason("UnrelatedKeyIdInToken")
    // 404, 405
    public static let badPath = APNSReason("BadPath")
    public static let methodNotAllowed = APNSReason("MethodNotAllowed")
    // 410
    public static let expiredToken = APNSReason("ExpiredToken")
    public static let unregistered = APNSReason("Unregistered")
    // 413
    public static let payloadTooLarge = APNSReason("PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = APNSReason("TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNSReason("TooManyRequests")
    // 500, 503
    public static let internalServerError = APNSReason("InternalServerError")
    public static let serviceUnavailable = APNSReason("ServiceUnavailable")
    public static let shutdown = APNSReason("Shutdown")

    /// Every reason Apple documents, with the status it comes with. The simulator answers with
    /// these pairs; the classifier does not need them (it reads the status it was given).
    public static let documented: [(reason: APNSReason, status: Int)] = [
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
    public var documentedStatus: Int? {
        Self.documented.first { $0.reason == self }?.status
    }

    /// The token will never work again: forget it (by kind — see the reference's "Lifecycle").
    /// A broadcast's channel that APNs no longer knows is dead the same way.
    public var isTokenDead: Bool {
        self == .unregistered || self == .expiredToken || self == .badDeviceToken || self == .channelNotRegistered
    }

    /// The app's credentials are wrong: every push of that app would fail the same way, so the
    /// app's deliveries pause until its credentials change.
    public var isCredentialProblem: Bool {
        Self.credentialReasons.contains(self)
    }

    /// The JWT is too old: sign a new one and send the same request again, once.
    public var isExpiredProviderToken: Bool { self == .expiredProviderToken }

    /// Worth sending again later, unchanged. `TooManyProviderTokenUpdates` is a `429` like
    /// `TooManyRequests`: the token itself is good, only its rotation came too soon.
    public var isRetryable: Bool {
        Self.retryableReasons.contains(self)
    }

    /// Never sent again as it is. Includes dead tokens and credential problems (the row is not
    /// retried; what happens to the token or the app is the verdict's business).
    public var isPermanent: Bool { !isRetryable && !isExpiredProviderToken }

    private static let credentialReasons: Set<APNSReason> = [
        .invalidProviderToken, .badCertificate, .badCertificateEnvironment, .forbidden,
        .missingProviderToken, .unrelatedKeyIDInToken,
    ]

    private static let retryableReasons: Set<APNSReason> = [
        .tooManyRequests, .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable,
        .shutdown, .idleTimeout,
    ]
}
