import Crypto

/// The segments every app has without creating them. They have no rows; each id is derived from
/// the app id, so every process and every restart shows the same one. Their names are reserved.
package enum BuiltInSegment: String, CaseIterable, Sendable {
    /// Every enabled, not-retired subscription.
    case subscribedUsers = "Subscribed Users"
    /// OneSignal's older name for `Subscribed Users`; the same subscriptions.
    case all = "All"
    /// A session in the last 7 days.
    case activeUsers = "Active Users"
    /// No session in the last 7 days.
    case inactiveUsers = "Inactive Users"

    /// Which reachable subscriptions a built-in segment selects.
    package enum Rule: Equatable, Sendable {
        case everyone
        /// `last_session_at` later than `now` minus this many hours.
        case sessionWithin(hours: Double)
        /// The complement of `sessionWithin`: `last_session_at` at or before `now` minus the hours.
        case noSessionWithin(hours: Double)
    }

    /// "Active" means a session in the last 7 days.
    package static let activeWindowHours = 7 * 24.0

    /// The built-in segment of this exact name, if any (names are case-sensitive like saved ones).
    package init?(named name: String) {
        self.init(rawValue: name)
    }

    package var name: String { rawValue }

    package var rule: Rule {
        switch self {
        case .subscribedUsers, .all: .everyone
        case .activeUsers: .sessionWithin(hours: Self.activeWindowHours)
        case .inactiveUsers: .noSessionWithin(hours: Self.activeWindowHours)
        }
    }

    /// A lower-case UUID (RFC 9562 version 8, "custom") made from SHA-256 of the segment and app id.
    /// `Subscribed Users` keeps the seed it has always had, so its id never changes.
    package func id(appID: String) -> String {
        var bytes = Array(SHA256.hash(Array("openpush.segment.\(slug):\(appID)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        let hex = bytes.hexString
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            hex.dropFirst(range.lowerBound).prefix(range.count)
        }
        return groups.joined(separator: "-")
    }

    /// The built-in segment of an app with this id, if any.
    package init?(id: String, appID: String) {
        guard let segment = Self.allCases.first(where: { $0.id(appID: appID) == id }) else { return nil }
        self = segment
    }

    private var slug: String {
        switch self {
        case .subscribedUsers: "subscribed-users"
        case .all: "all"
        case .activeUsers: "active-users"
        case .inactiveUsers: "inactive-users"
        }
    }
}
