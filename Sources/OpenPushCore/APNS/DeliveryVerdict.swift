/// What the worker does with one APNs answer. A rejection is a value, never an exception.
package enum DeliveryVerdict: Sendable, Hashable {
    /// `200`: APNs took the push.
    case accepted
    /// Transient (`429`, `5xx`, `IdleTimeout`): send the same request again after a backoff.
    case retry(APNSReason)
    /// The token is gone (`410`, `400 BadDeviceToken`): drop it by kind, end the row.
    case deadToken(APNSReason)
    /// The app's credentials are rejected: end the row, pause the app.
    case credentials(APNSReason)
    /// `403 ExpiredProviderToken`: sign a fresh JWT and send once more.
    case refreshTokenAndRetry
    /// Anything else: the row ends `error` with this reason and is never retried.
    case permanent(APNSReason)

    /// The reason recorded on the delivery row, if the push was not accepted.
    package var reason: APNSReason? {
        switch self {
        case .accepted: nil
        case .refreshTokenAndRetry: .expiredProviderToken
        case .retry(let reason), .deadToken(let reason), .credentials(let reason), .permanent(let reason): reason
        }
    }
}
