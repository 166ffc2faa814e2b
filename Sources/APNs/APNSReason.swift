/// The `reason` APNs gives with a rejection. An open list: an unknown reason is still a
/// value; it invalidates no token and is permanent unless the status says otherwise
/// (`APNSResponse.isRetryable`).
public struct APNSReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    // 400
    public static let badCollapseID = APNSReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNSReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNSReason(rawValue: "BadExpirationDate")
    public static let badMessageID = APNSReason(rawValue: "BadMessageId")
    public static let badPriority = APNSReason(rawValue: "BadPriority")
    public static let badTopic = APNSReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNSReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNSReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNSReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNSReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNSReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNSReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNSReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNSReason(rawValue: "TopicDisallowed")
    // 403
    public static let badCertificate = APNSReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNSReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNSReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNSReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNSReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNSReason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIDInToken = APNSReason(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyInToken = APNSReason(rawValue: "BadEnvironmentKeyInToken")
    // 404, 405, 410, 413
    public static let badPath = APNSReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNSReason(rawValue: "MethodNotAllowed")
    public static let expiredToken = APNSReason(rawValue: "ExpiredToken")
    public static let unregistered = APNSReason(rawValue: "Unregistered")
    public static let payloadTooLarge = APNSReason(rawValue: "PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = APNSReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNSReason(rawValue: "TooManyRequests")
    // 500, 503
    public static let internalServerError = APNSReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNSReason(rawValue: "ServiceUnavailable")
    public static let shutdown = APNSReason(rawValue: "Shutdown")

    /// The device token is dead: delete or retire it (what that means depends on its kind).
    public var invalidatesToken: Bool {
        self == .badDeviceToken || self == .unregistered || self == .expiredToken
    }

    /// The provider credentials are wrong: pause the app's deliveries until they are fixed.
    /// `ExpiredProviderToken` is not among them: the client refreshes the token itself.
    public var isCredentialProblem: Bool {
        [.badCertificate, .badCertificateEnvironment, .forbidden, .invalidProviderToken,
         .missingProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyInToken].contains(self)
    }

    /// Worth retrying later with the same request: throttling and server trouble.
    public var isTransient: Bool {
        [.tooManyRequests, .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable,
         .shutdown, .idleTimeout, .expiredProviderToken].contains(self)
    }

    /// Retrying the same request can never succeed.
    public var isPermanent: Bool { !isTransient }
}
