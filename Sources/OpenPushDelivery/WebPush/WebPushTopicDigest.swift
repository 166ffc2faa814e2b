import Crypto
import OpenPushCore

/// The `Topic` of a push whose `collapse_id` is not one (`WebPushTopic`): the first 24 bytes of
/// its SHA-256 in base64url, 32 characters. The same collapse id always gives the same topic.
enum WebPushTopicDigest {
    static func digest(of collapseID: String) -> String {
        Base64URL.encode(Array(SHA256.hash(Array(collapseID.utf8)).prefix(24)))
    }
}
