/// A device's push token as its SDK sends it. An APNs token is hex text of even length: Apple
/// documents it as opaque and has changed its size before, so only sane bounds are enforced, not
/// a length; it is stored lower-cased so one device always lands on one row. An FCM registration
/// token is opaque text Google may change the shape of: printable ASCII, kept exactly as sent.
package enum DeviceToken {
    /// Hex characters: 8 to 256 bytes of token.
    package static let lengths: ClosedRange<Int> = 16...512
    /// An FCM registration token's characters.
    package static let fcmLengths: ClosedRange<Int> = 1...4096

    /// What is wrong with `text` as a token of `service`, worded to follow the field name; nil
    /// when well formed.
    package static func problem(_ text: String, service: PushService = .apns) -> String? {
        let count = text.utf8.count
        switch service {
        case .apns:
            guard lengths.contains(count) else {
                return "must be \(lengths.lowerBound) to \(lengths.upperBound) hex characters, got \(count)"
            }
            guard text.utf8.allSatisfy(isHexDigit) else { return "must be hex (0-9, a-f)" }
            guard count.isMultiple(of: 2) else { return "must have an even number of hex characters" }
            return nil
        case .fcm, .webPush:
            // A browser's endpoint URL is checked as a URL by the registration (`WebPushRegistrationEndpoint`).
            return opaqueProblem(text, count: count)
        }
    }

    /// What is wrong with `text` as a token that names a device of either service (an APNs token
    /// is printable ASCII too, so this is the FCM rule); nil when it may name one.
    package static func lookupProblem(_ text: String) -> String? {
        opaqueProblem(text, count: text.utf8.count)
    }

    /// The stored form: APNs tokens lower-cased, FCM tokens as sent.
    package static func normalized(_ text: String, service: PushService = .apns) -> String {
        service == .apns ? text.lowercased() : text
    }

    /// Whether a token sent by a client names the stored token of a device of `service`.
    package static func names(_ sent: String, stored: String, service: PushService) -> Bool {
        normalized(sent, service: service) == stored
    }

    private static func opaqueProblem(_ text: String, count: Int) -> String? {
        guard fcmLengths.contains(count) else {
            return "must be \(fcmLengths.lowerBound) to \(fcmLengths.upperBound) characters, got \(count)"
        }
        guard text.utf8.allSatisfy(isPrintable) else {
            return "must be printable ASCII without spaces (! to ~)"
        }
        return nil
    }

    private static func isPrintable(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default:
            false
        }
    }
}

extension FieldReader {
    /// A device token of `service`, checked and in its stored form; a bad one is recorded as a
    /// problem naming `key`.
    package mutating func deviceToken(_ key: String, required: Bool = false, service: PushService = .apns) -> String? {
        guard let text = string(key, required: required) else { return nil }
        if let problem = DeviceToken.problem(text, service: service) {
            self.problem("\(key) \(problem)")
            return nil
        }
        return DeviceToken.normalized(text, service: service)
    }

    /// A token naming a device of either service, as sent: the store matches it against each
    /// service's stored form (`SubscriptionStore.tokenNames`).
    package mutating func deviceTokenLookup(_ key: String, required: Bool = false) -> String? {
        guard let text = string(key, required: required) else { return nil }
        if let problem = DeviceToken.lookupProblem(text) {
            self.problem("\(key) \(problem)")
            return nil
        }
        return text
    }
}
