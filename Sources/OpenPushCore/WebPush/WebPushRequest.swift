/// One browser push, planned and not yet encrypted: where it goes, the subscription's keys
/// (RFC 8291), the plaintext JSON the service worker reads, and the RFC 8030 headers' values.
/// The transport encrypts it (a fresh key and salt per push) and signs VAPID for the endpoint.
package struct WebPushRequest: Sendable, Equatable {
    /// The subscription's endpoint URL, as registered.
    package var endpoint: String
    /// `web_p256`: base64url of the browser's 65-byte uncompressed P-256 public key.
    package var p256dh: String
    /// `web_auth`: base64url of the 16-byte authentication secret.
    package var auth: String
    /// The message as JSON bytes (at most `WebPushRequest.maxPlaintextBytes`).
    package var plaintext: [UInt8]
    /// `TTL`, seconds.
    package var ttl: Int
    package var urgency: Urgency
    /// `Topic`: at most 32 base64url characters, or none.
    package var topic: String?

    /// The most plaintext one 4,096-byte `aes128gcm` record carries (RFC 8291 §4: 4,096 less the
    /// 86-byte header, the padding delimiter and the 16-byte tag).
    package static let maxPlaintextBytes = 3993
    /// `TTL` when the notification gives none: three days.
    package static let defaultTTL = 259_200

    /// RFC 8030 §5.3's `Urgency` values OpenPush sends.
    package enum Urgency: String, Sendable, Equatable {
        case high
        case normal
    }

    package init(endpoint: String, p256dh: String, auth: String, plaintext: [UInt8], ttl: Int = defaultTTL,
                 urgency: Urgency = .normal, topic: String? = nil) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.plaintext = plaintext
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }
}
