import OpenPushCore

extension WebhookClaim {
    /// The secrets to sign this attempt with, opened from how they are stored (sealed when
    /// `OPENPUSH_SECRET_KEY` was set): the current one, and the previous one inside its 24 hours.
    /// A previous secret that does not open is left out (the current one still signs); a current
    /// one that does not open fails the attempt, naming the key that sealed it.
    func signingSecrets(keyring: SecretKeyring, now: Double) -> Result<[String], SealedSecretError> {
        let current: String
        do {
            current = try keyring.open(secret)
        } catch {
            return .failure(error)
        }
        let previous = previousSecret.flatMap { try? keyring.open($0) }
        return .success(WebhookSignature.signingSecrets(current: current, previous: previous,
                                                        previousUntil: previousSecretUntil, now: now))
    }
}
