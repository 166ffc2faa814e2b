/// An FCM request body written once for every device it suits: `FCMMessage.serializedBytes`
/// with the two values that differ per device — the registration token and the subscription
/// id — left as holes, filled for each device by copying. The recipients of a fan-out share
/// everything else, and writing the whole body per device was most of an Android push's cost.
package struct FCMBodyTemplate: Sendable {
    private enum Hole { case token, subscriptionID }

    /// The bytes between the holes (one more piece than holes), or nil when the body could
    /// not be split (a sentinel found more than once): then each body is written in full.
    private let pieces: [[UInt8]]?
    private let holes: [Hole]
    private let message: FCMMessage

    private static let tokenMark = "\u{1}openpush-token\u{1}"
    private static let subscriptionMark = "\u{1}openpush-subscription\u{1}"

    /// The template of `message`'s body; its own token and subscription id are ignored.
    package init(_ message: FCMMessage) {
        var marked = message
        marked.token = Self.tokenMark
        marked.subscriptionID = Self.subscriptionMark
        self.message = marked
        let bytes = marked.serializedBytes
        let token = Self.written(Self.tokenMark)
        let subscription = Self.written(Self.subscriptionMark)
        var pieces: [[UInt8]] = []
        var holes: [Hole] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if let (hole, length) = Self.mark(at: index, in: bytes, token: token, subscription: subscription) {
                pieces.append(Array(bytes[start..<index]))
                holes.append(hole)
                index += length
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(Array(bytes[start...]))
        // Each value appears exactly once in a body; anything else (a sentinel in the app's own
        // data) and the template is not used.
        let usable = holes.count == 2 && Set(holes.map { $0 == .token }).count == 2
        self.pieces = usable ? pieces : nil
        self.holes = usable ? holes : []
    }

    /// The body for one device: the same bytes `FCMMessage.serializedBytes` writes for it.
    package func body(token: String, subscriptionID: String) -> [UInt8] {
        guard let pieces else {
            var full = message
            full.token = token
            full.subscriptionID = subscriptionID
            return full.serializedBytes
        }
        var output: [UInt8] = []
        output.reserveCapacity(pieces.reduce(token.utf8.count + subscriptionID.utf8.count + 8) { $0 + $1.count })
        for (index, hole) in holes.enumerated() {
            output.append(contentsOf: pieces[index])
            JSONValue.writeString(hole == .token ? token : subscriptionID, to: &output)
        }
        output.append(contentsOf: pieces[holes.count])
        return output
    }

    private static func written(_ string: String) -> [UInt8] {
        var output: [UInt8] = []
        JSONValue.writeString(string, to: &output)
        return output
    }

    private static func mark(at index: Int, in bytes: [UInt8], token: [UInt8], subscription: [UInt8]) -> (Hole, Int)? {
        guard bytes[index] == UInt8(ascii: "\"") else { return nil }
        if matches(token, at: index, in: bytes) { return (.token, token.count) }
        if matches(subscription, at: index, in: bytes) { return (.subscriptionID, subscription.count) }
        return nil
    }

    private static func matches(_ pattern: [UInt8], at index: Int, in bytes: [UInt8]) -> Bool {
        guard index + pattern.count <= bytes.count else { return false }
        for offset in 0..<pattern.count where bytes[index + offset] != pattern[offset] { return false }
        return true
    }
}
