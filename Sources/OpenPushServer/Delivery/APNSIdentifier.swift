import Crypto

/// The `apns-id` of one push, derived from what it is (message, device, token kind) rather than
/// stored: a job run again after a crash sends the same `apns-id`, and support can compute it.
/// PostgreSQL's `openpush_apns_id` computes the same.
enum APNSIdentifier {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A UUID (version 8, "custom") made of the first 16 bytes of a SHA-256. Built in stack
    /// buffers, with no allocation but the string's: it runs once per recipient of every job.
    static func derive(messageID: String, subscriptionID: String, tokenKind: String) -> String {
        let inputCount = messageID.utf8.count + subscriptionID.utf8.count + tokenKind.utf8.count + 2
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: inputCount + 32) { buffer in
            var cursor = copyUTF8(of: messageID, to: buffer.baseAddress!)
            cursor.pointee = UInt8(ascii: "\n")
            cursor = copyUTF8(of: subscriptionID, to: cursor + 1)
            cursor.pointee = UInt8(ascii: "\n")
            _ = copyUTF8(of: tokenKind, to: cursor + 1)
            let digest = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[inputCount...]))
            SHA256.hash(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<inputCount])), into: digest)
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

    /// Copies the text's UTF-8 to `destination`; returns the byte after it.
    private static func copyUTF8(of text: String, to destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var text = text
        return text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return destination }
            destination.update(from: base, count: utf8.count)
            return destination + utf8.count
        }
    }
}
