/// What a device asked of the alerts it gets — its quiet hours and the threads it muted — and
/// its local time of day, as the server loaded them for one batch. Only devices that set a
/// preference have one.
package struct DeviceAttention: Sendable, Equatable {
    package var quietHours: QuietHoursWindow?
    package var mutedThreads: Set<String>
    /// The device's wall clock (seconds after local midnight) when the context was loaded, in its
    /// zone: the subscription's IANA `timezone`, else its user's `timezone_id`, else its offset
    /// `timezone`, else UTC.
    package var localSecondsOfDay: Double
    /// The first instant (unix seconds) at or after then at which that clock reads the quiet
    /// hours' end, computed in the zone (so a DST change is accounted for).
    package var quietHoursEndAt: Double?

    package init(quietHours: QuietHoursWindow? = nil, mutedThreads: Set<String> = [], localSecondsOfDay: Double = 0,
                quietHoursEndAt: Double? = nil) {
        self.quietHours = quietHours
        self.mutedThreads = mutedThreads
        self.localSecondsOfDay = localSecondsOfDay
        self.quietHoursEndAt = quietHoursEndAt
    }
}

/// Applies a device's quiet hours and muted threads to one notification. Pure.
///
/// Only alerts are affected: background pushes and widget reloads show nothing, so they go as
/// usual; Live Activity pushes never come here (an activity is something the user started). A
/// muted thread's alerts never go, whatever their interruption level. In quiet hours,
/// `time-sensitive` and `critical` alerts go as usual; the others follow the message's mode.
package enum DeviceAttentionPolicy {
    package enum Decision: Sendable, Equatable {
        case send
        /// Sent now, `interruption-level: passive` and without a sound.
        case silence
        /// Not sent: recorded `suppressed` with this reason.
        case suppress(SuppressionReason)
        /// Held, on the same attempt, until this instant (unix seconds).
        case deferUntil(Double)
    }

    package static func decide(_ send: NotificationSend, attention: DeviceAttention?, now: Double) -> Decision {
        guard send.kind == .alert, let attention else { return .send }
        if MutedThreads.mutes(attention.mutedThreads, threadID: send.threadID) { return .suppress(.muted) }
        guard let window = attention.quietHours, send.quietHours != .ignore else { return .send }
        switch send.interruptionLevel {
        case .timeSensitive?, .critical?: return .send
        case .passive?, .active?, nil: break
        }
        let state = QuietHours.state(window, localSecondsOfDay: attention.localSecondsOfDay, now: now,
                                     endsAt: attention.quietHoursEndAt)
        guard case .quiet(let until) = state else { return .send }
        switch send.quietHours {
        case .silence: return .silence
        case .defer: return .deferUntil(until)
        case .ignore: return .send
        }
    }

    /// The send as it goes to a device in quiet hours with `silence`: passive, no sound.
    package static func silenced(_ send: NotificationSend) -> NotificationSend {
        var quiet = send
        quiet.interruptionLevel = .passive
        quiet.sound = nil
        return quiet
    }
}
