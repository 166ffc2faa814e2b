import Crypto

/// The `apns-id` of one push, derived from what it is (message, device, token kind) rather than
/// stored: a job run again after a crash sends the same `apns-id`, and support can compute it.
enum APNSIdentifier {
    /// A UUID (version 8, "custom") made of the first 16 bytes of a SHA-256.
    static func derive(messageID: String, subscriptionID: String, tokenKind: String) -> String {
        var bytes = Array(SHA256.hash(Array("\(messageID)\n\(subscriptionID)\n\(tokenKind)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let characters = Array(bytes.hexString)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
