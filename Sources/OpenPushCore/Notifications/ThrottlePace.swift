/// How a throttled message is paced: its recipients go into jobs of `recipientsPerSlot`, one job
/// per slot, consecutive slots `slotSeconds` apart, so the message never averages more than
/// its rate over a minute and no burst is larger than one slot. Workers send a job when it
/// comes due, so the pace holds across every process without any coordination but due times.
///
/// OneSignal sends `floor(rate / 60)` a second; OpenPush keeps batches of that size but fits as
/// many whole batches into a minute as the rate allows (1019 a minute: 63 batches of 16 a
/// minute, 1008, where OneSignal sends 960), and below 60 a minute sends one at a time,
/// `60 / rate` seconds apart.
///
/// As OneSignal does, a rate too slow to reach the whole audience within 24 hours is raised to
/// the rate that does (`audience / 1440` a minute, rounded up).
package struct ThrottlePace: Sendable, Equatable {
    package static let deliveryWindowMinutes = 24 * 60

    package let recipientsPerSlot: Int
    package let slotSeconds: Double

    /// The pace for a message of `audience` recipients: the requested rate, or the one that
    /// finishes within 24 hours when that is higher.
    package init(requestedRatePerMinute: Int, audience: Int) {
        let needed = (max(audience, 0) + Self.deliveryWindowMinutes - 1) / Self.deliveryWindowMinutes
        let rate = max(requestedRatePerMinute, needed, 1)
        let perSlot = max(1, rate / 60)
        // Whole slots a minute, so that no 60-second window, wherever it starts, holds more than the rate.
        self.init(recipientsPerSlot: perSlot, slotSeconds: 60 / Double(rate / perSlot))
    }

    /// A pace as stored on the message row.
    package init(recipientsPerSlot: Int, slotSeconds: Double) {
        self.recipientsPerSlot = max(1, recipientsPerSlot)
        self.slotSeconds = max(0, slotSeconds)
    }

    /// The rate applied, per minute.
    package var ratePerMinute: Double { slotSeconds > 0 ? 60 * Double(recipientsPerSlot) / slotSeconds : .infinity }

    /// Slots `recipients` need.
    package func slots(for recipients: Int) -> Int {
        (max(recipients, 0) + recipientsPerSlot - 1) / recipientsPerSlot
    }

    /// Seconds after the first slot at which the recipient at `index` (0-based, in send order) is due.
    package func offset(ofRecipient index: Int) -> Double {
        Double(index / recipientsPerSlot) * slotSeconds
    }
}
