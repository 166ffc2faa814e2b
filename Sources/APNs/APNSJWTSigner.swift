package import Crypto
import OpenPushCore
import Synchronization

/// Signs and caches the provider token of one key. Thread-safe: every connection of
/// the credential asks it for the token to put in `authorization`.
package final class APNSJWTSigner: Sendable {
    package let credential: APNSProviderKey
    private let schedule = Mutex(APNSProviderTokenSchedule())

    package init(credential: APNSProviderKey) {
        self.credential = credential
    }

    /// The cached token, or a new one when the cached one is 50 minutes old.
    package func token(now: Double) throws(CryptoError) -> APNSProviderToken {
        try resolve { $0.decision(now: now) }
    }

    /// After `403 ExpiredProviderToken` for `rejected`: a new token if the 20-minute floor
    /// allows, otherwise the current one (which may be `rejected` itself).
    package func refresh(rejected: String, now: Double) throws(CryptoError) -> APNSProviderToken {
        try resolve { $0.decision(now: now, afterRejecting: rejected) }
    }

    /// Signing under the lock: it happens once in 50 minutes, and concurrent askers must not
    /// each sign a token (APNs counts every new one).
    private func resolve(
        _ decide: (APNSProviderTokenSchedule) -> APNSProviderTokenSchedule.Decision
    ) throws(CryptoError) -> APNSProviderToken {
        let result: Result<APNSProviderToken, CryptoError> = schedule.withLock { schedule in
            switch decide(schedule) {
            case .reuse(let token):
                return .success(token)
            case .issue(let issuedAt):
                let signed = Result { () throws(CryptoError) in try Self.sign(credential, issuedAt: issuedAt) }
                if case .success(let token) = signed { schedule.install(token) }
                return signed
            }
        }
        return try result.get()
    }

    /// `base64url({"alg":"ES256","kid":…}) . base64url({"iss":…,"iat":…}) . base64url(r‖s)`.
    package static func sign(_ credential: APNSProviderKey, issuedAt: Int64) throws(CryptoError) -> APNSProviderToken {
        let header: JSONValue = ["alg": "ES256", "kid": .string(credential.keyID)]
        let claims: JSONValue = ["iss": .string(credential.teamID), "iat": .int(issuedAt)]
        let signingInput = Base64URL.encode(header.serializedBytes) + "." + Base64URL.encode(claims.serializedBytes)
        let signature = try credential.signingKey.signES256(Array(signingInput.utf8))
        return APNSProviderToken(jwt: signingInput + "." + Base64URL.encode(signature), issuedAt: issuedAt)
    }
}
