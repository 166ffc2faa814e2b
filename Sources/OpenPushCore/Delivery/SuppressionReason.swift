/// Why a delivery policy chose not to send a push to a device. Recorded on the device's record
/// (state `suppressed`) and counted by `GET /notifications/{id}` under `suppressed`.
package enum SuppressionReason: String, Sendable, Hashable, CaseIterable {
    /// A Live Activity update folded into a later one that carried the newest state.
    case coalesced
    /// A widget reload folded into the interval's trailing push.
    case throttled
    /// The device was already sent an alert with this `dedupe_key` within the app's window.
    case deduplicated
    /// The event behind the alert was older than its staleness limit when its turn came.
    case stale
    /// The device muted the alert's `thread_id`.
    case muted
    /// Every text rendered empty and there was no `privacy_text` to send instead.
    case blank
    /// The push goes to a token of a kind the device does not hold (`apns_push_type_override`
    /// `voip` and the other extra kinds); an Android device never holds one.
    case noToken = "no_token"
}
