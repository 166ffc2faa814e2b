/// When to sign a new provider token, as a pure value with time as a parameter.
///
/// APNs rejects a token older than an hour (`ExpiredProviderToken`) and one replaced more
/// often than every 20 minutes (`TooManyProviderTokenUpdates`): so renew after 50 minutes,
/// and never within 20 — not even when APNs says the token expired, unless it is older than that.
package struct APNSProviderTokenSchedule: Sendable, Hashable {
    package static let refreshAfter: Double = 50 * 60
    package static let minimumAge: Double = 20 * 60

    package enum Decision: Sendable, Hashable {
        case reuse(APNSProviderToken)
        /// Sign a new token with this `iat`.
        case issue(issuedAt: Int64)
    }

    package private(set) var current: APNSProviderToken?

    package init(current: APNSProviderToken? = nil) {
        self.current = current
    }

    /// The token to use for a request now.
    package func decision(now: Double) -> Decision {
        guard let current, age(of: current, now: now) < Self.refreshAfter else {
            return .issue(issuedAt: Int64(now.rounded(.down)))
        }
        return .reuse(current)
    }

    /// After APNs answered `ExpiredProviderToken` for `rejected`: a new token only if the
    /// rejected one is still current and at least 20 minutes old. When a newer token is already
    /// current (another request refreshed it), that one is the answer.
    package func decision(now: Double, afterRejecting rejected: String) -> Decision {
        guard let current else { return .issue(issuedAt: Int64(now.rounded(.down))) }
        if current.jwt == rejected, age(of: current, now: now) >= Self.minimumAge {
            return .issue(issuedAt: Int64(now.rounded(.down)))
        }
        return decision(now: now)
    }

    package mutating func install(_ token: APNSProviderToken) {
        current = token
    }

    /// A clock that stepped back makes the age negative: the token is then kept, since
    /// APNs judges it by real time, which did not step back.
    private func age(of token: APNSProviderToken, now: Double) -> Double {
        now - Double(token.issuedAt)
    }
}
