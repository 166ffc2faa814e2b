/// The VAPID `sub` claim (RFC 8292 §2.1): how a push service reaches the sender, a `mailto:` or
/// `https:` URL. Apple's push service refuses a push without one.
package enum WebPushSubject {
    package static let maxLength = 255
    package static let requirement = "must be a mailto: or https: URL of at most \(maxLength) characters"

    package static func isValid(_ text: String) -> Bool {
        guard text.utf8.count <= maxLength, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            return false
        }
        let lowered = text.lowercased()
        if lowered.hasPrefix("mailto:") { return lowered.count > "mailto:".count && lowered.contains("@") }
        if lowered.hasPrefix("https://") { return lowered.count > "https://".count }
        return false
    }
}
