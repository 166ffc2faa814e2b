/// The life of an app's APNs certificate as its expiry nears, decided from the time passed in:
/// thirty days before it expires the app's `apns_status` warns and one
/// `app.credentials_expiring` event is emitted for the certificate; once expired, the app is
/// paused (its pushes wait) until a new certificate or a `.p8` key replaces it. Pure.
package enum CertificateExpiry {
    package static let warningSeconds: Double = 30 * 86_400
    /// `apns_status_reason` of an app paused by its expired certificate.
    package static let pauseReason = "CertificateExpired"

    package enum Stage: Sendable, Equatable {
        case valid
        /// Within `warningSeconds` of its expiry.
        case expiring
        case expired
    }

    package static func stage(expiresAt: Double, now: Double) -> Stage {
        if now >= expiresAt { return .expired }
        return now >= expiresAt - warningSeconds ? .expiring : .valid
    }

    /// What one periodic check does for a certificate.
    package struct Actions: Sendable, Equatable {
        /// Emit `app.credentials_expiring` (and remember it was).
        package var warn = false
        /// Pause the app with `pauseReason`.
        package var pause = false

        package init(warn: Bool = false, pause: Bool = false) {
            self.warn = warn
            self.pause = pause
        }
    }

    /// `warned`: the event was emitted for this certificate already. `pausedForExpiry`: the app is
    /// paused with `pauseReason` already (its status time is not bumped again).
    package static func actions(expiresAt: Double, warned: Bool, pausedForExpiry: Bool, now: Double) -> Actions {
        switch stage(expiresAt: expiresAt, now: now) {
        case .valid:
            return Actions()
        case .expiring:
            return Actions(warn: !warned)
        case .expired:
            // An app that missed the warning (checks stopped for weeks) still gets it once.
            return Actions(warn: !warned, pause: !pausedForExpiry)
        }
    }
}
