import Crypto
package import OpenPushCore

/// The `apns-id` of one push, derived from what it is (message, device, token kind) rather than
/// stored: a job run again after a crash sends the same `apns-id`, and support can compute it.
/// PostgreSQL's `openpush_apns_id` computes the same.
package enum APNSIdentifier {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A UUID (version 8, "custom") made of the first 16 bytes of a SHA-256. The digest stays
    /// on the stack: this runs once per recipient of every job.
    package static func derive(messageID: String, subscriptionID: String, tokenKind: TokenKind) -> String {
        // The raw value, as `openpush_apns_id` hashes the stored `token_kind`.
        var input = messageID + "\n" + subscriptionID + "\n" + tokenKind.rawValue
        return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { digest in
            input.withUTF8 { SHA256.hash(UnsafeRawBufferPointer($0), into: digest) }
            digest[6] = (digest[6] & 0x0F) | 0x80
            digest[8] = (digest[8] & 0x3F) | 0x80
            return String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = hexDigits[Int(digest[index] >> 4)]
                    text[position + 1] = hexDigits[Int(digest[index] & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }
}
