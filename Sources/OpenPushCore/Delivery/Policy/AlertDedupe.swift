/// Durable dedupe: a device that was already sent an alert with a message's `dedupe_key` (same
/// app) within the app's `dedupe_window_days` is not sent it again (recorded `suppressed`,
/// reason `deduplicated`).
///
/// The engine claims (app, key, device) in PostgreSQL before the push goes (`AlertDedupeStore`),
/// so two concurrent sends — in any processes, before or after a restart — give each device one
/// push at most. A claim holds for the message that made it (its retries and re-runs claim
/// again and win), and is given back in the completion transaction when that push ends in
/// `error`: a device that was never told may be told later. This type holds the pure part: which
/// recipients need a claim, the window, and what happens to a claim after the push.
package enum AlertDedupe {
    package static let defaultWindowDays = 30
    package static let longestWindowDays = 365

    /// One (app, key, device) claim, made for one message.
    package struct Claim: Hashable, Sendable {
        package var appID: String
        package var dedupeKey: String
        package var subscriptionID: String
        package var messageID: String
        /// Unix seconds: a claim made before this by another message no longer dedupes.
        package var windowStart: Double

        package init(appID: String, dedupeKey: String, subscriptionID: String, messageID: String, windowStart: Double) {
            self.appID = appID
            self.dedupeKey = dedupeKey
            self.subscriptionID = subscriptionID
            self.messageID = messageID
            self.windowStart = windowStart
        }

        /// What a database row identifies it by.
        package var key: Key { Key(appID: appID, dedupeKey: dedupeKey, subscriptionID: subscriptionID) }
    }

    package struct Key: Hashable, Sendable {
        package var appID: String
        package var dedupeKey: String
        package var subscriptionID: String

        package init(appID: String, dedupeKey: String, subscriptionID: String) {
            self.appID = appID
            self.dedupeKey = dedupeKey
            self.subscriptionID = subscriptionID
        }
    }

    /// The earliest claim that still dedupes at `now`: `days` whole days back.
    package static func windowStart(now: Double, days: Int) -> Double {
        now - Double(min(max(days, 1), longestWindowDays)) * 86_400
    }

    /// Whether a claim made at `claimedAt` still dedupes at `now`.
    package static func dedupes(claimedAt: Double, now: Double, days: Int) -> Bool {
        claimedAt >= windowStart(now: now, days: days)
    }

    /// The claim a push must win before it is sent, or nil when it needs none: only an alert
    /// (to a device token) of a message with a `dedupe_key` does.
    package static func claim(for delivery: ClaimedDelivery, context: DeliveryContext, now: Double) -> Claim? {
        guard delivery.tokenKind == .device, let send = context.message(for: delivery)?.notification, send.kind == .alert,
              let key = send.gates.dedupeKey, let app = context.app(for: delivery) else { return nil }
        return Claim(appID: delivery.appID, dedupeKey: key, subscriptionID: delivery.subscriptionID,
                     messageID: delivery.messageID, windowStart: windowStart(now: now, days: app.dedupeWindowDays))
    }

    /// Splits the pushes that needed a claim by what the database granted (`won`, by key): the
    /// first push per key that won goes and holds the claim; every other is deduplicated —
    /// including a second push of one device in the same batch.
    package static func split<ID: Hashable>(_ wanted: [(id: ID, claim: Claim)], won: Set<Key>)
        -> (granted: [ID: Claim], deduplicated: Set<ID>) {
        var granted: [ID: Claim] = [:]
        var deduplicated: Set<ID> = []
        var taken: Set<Key> = []
        for (id, claim) in wanted {
            if won.contains(claim.key), taken.insert(claim.key).inserted {
                granted[id] = claim
            } else {
                deduplicated.insert(id)
            }
        }
        return (granted, deduplicated)
    }

    /// Whether the claim behind a push is given back after its decision: only when the push ended
    /// in `error` (rejected for good, its token dead, or its attempts used up), so the device was
    /// never told. An accepted push keeps it; a retry or a held push keeps it for its next attempt.
    package static func releases(after decision: DeliveryOutcome.Decision) -> Bool {
        if case .finished(.error, _) = decision { return true }
        return false
    }

    /// Claims made before this no longer dedupe in an app with a `days` window: the maintenance
    /// loop deletes them.
    package static func pruneBefore(now: Double, days: Int) -> Double { windowStart(now: now, days: days) }
}
