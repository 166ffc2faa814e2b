import Crypto
import OpenPushCore
import Synchronization

/// Each app's VAPID key, parsed once, and the `Authorization` headers signed with it, one per
/// origin reused for `lifetime` seconds: a fan-out signs once per push service, not per push.
final class WebPushAuthorizations: Sendable {
    private struct KeyID: Hashable {
        var app: String
        var publicKey: String
    }

    private struct HeaderID: Hashable {
        var key: KeyID
        var subject: String
        var audience: String
    }

    private struct Signed {
        var header: String
        var signedAt: Double
    }

    private struct Cache {
        var keys: [KeyID: P256KeyPair] = [:]
        var headers: [HeaderID: Signed] = [:]
    }

    /// Headers kept at most; past it, expired ones are dropped (an app whose endpoints sit on
    /// many hosts of one push service, such as Edge's).
    static let maxHeaders = 10_000

    let lifetime: Double
    private let cache = Mutex(Cache())

    init(lifetime: Double) {
        self.lifetime = lifetime
    }

    /// `vapid t=…, k=…` for `audience` (the endpoint's origin), `exp` an hour past the reuse period.
    func header(for key: WebPushVAPIDKey, app: String, audience: String, now: Double) -> Result<String, WebPushSender.Refusal> {
        let keyID = KeyID(app: app, publicKey: key.publicKey)
        let id = HeaderID(key: keyID, subject: key.subject, audience: audience)
        let cached = cache.withLock { cache -> (header: String?, pair: P256KeyPair?) in
            if let signed = cache.headers[id], now - signed.signedAt < lifetime, now >= signed.signedAt {
                return (signed.header, nil)
            }
            return (nil, cache.keys[keyID])
        }
        if let header = cached.header { return .success(header) }
        let pair: P256KeyPair
        if let known = cached.pair {
            pair = known
        } else {
            do {
                pair = try P256KeyPair(pem: key.privateKeyPEM)
            } catch {
                return .failure(WebPushSender.Refusal(message: "the app's VAPID private key cannot be read: \(error)"))
            }
        }
        let header: String
        do {
            header = try VAPID.authorization(key: pair, audience: audience, subject: key.subject,
                                             expiresAt: Int(now + lifetime) + 3600)
        } catch {
            return .failure(WebPushSender.Refusal(message: "could not sign the VAPID header: \(error)"))
        }
        cache.withLock { cache in
            cache.keys[keyID] = pair
            if cache.headers.count >= Self.maxHeaders {
                cache.headers = cache.headers.filter { now - $0.value.signedAt < lifetime }
            }
            cache.headers[id] = Signed(header: header, signedAt: now)
        }
        return .success(header)
    }
}
