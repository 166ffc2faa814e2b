import Crypto

/// The `apns-id` of one push, derived from what it is (message, device, token kind) rather than
/// stored: a job run again after a crash sends the same `apns-id`, and support can compute it.
/// PostgreSQL's `openpush_apns_id` computes the same.
enum APNSIdentifier {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A UUID (version 8, "custom") made of the first 16 bytes of a SHA-256. Built as bytes:
    /// it runs once per recipient of every job.
    static func derive(messageID: String, subscriptionID: String, tokenKind: String) -> String {
        var input: [UInt8] = []
        input.reserveCapacity(messageID.utf8.count + subscriptionID.utf8.count + tokenKind.utf8.count + 2)
        input.append(contentsOf: messageID.utf8)
        input.append(UInt8(ascii: "\n"))
        input.append(contentsOf: subscriptionID.utf8)
        input.append(UInt8(ascii: "\n"))
        input.append(contentsOf: tokenKind.utf8)
        var bytes = SHA256.hash(input)
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for index in 0..<16 {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexDigits[Int(bytes[index] >> 4)])
            text.append(hexDigits[Int(bytes[index] & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
