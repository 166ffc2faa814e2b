import Crypto

/// `Subscribed Users`: every enabled, not-retired subscription of an app. It has no row; its id
/// is derived from the app id, so every process and every restart shows the same one.
public enum BuiltInSegment {
    public static let subscribedUsers = "Subscribed Users"

    /// A lower-case UUID (RFC 9562 version 8, "custom") made from SHA-256 of the app id.
    public static func subscribedUsersID(appID: String) -> String {
        var bytes = Array(SHA256.hash(Array("openpush.segment.subscribed-users:\(appID)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        let hex = bytes.hexString
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            hex.dropFirst(range.lowerBound).prefix(range.count)
        }
        return groups.joined(separator: "-")
    }
}
