/// Whose pushes wait for a stream: a pool's requests queue per sender, and senders take turns
/// for the streams that come free, urgent ones first (`APNSRequestQueue`). So when APNs is the
/// slow side, another sender's push waits behind at most the requests already on the wire,
/// not behind everything one busy sender has queued.
package struct APNSSender: Hashable, Sendable {
    /// Usually the app; senders with the same tenant and urgency share one queue.
    package var tenant: String
    /// Served before every non-urgent sender of the pool (Live Activity updates, time-sensitive
    /// alerts): a bulk fan-out of the same app does not hold them back either.
    package var isUrgent: Bool

    package init(tenant: String, isUrgent: Bool = false) {
        self.tenant = tenant
        self.isUrgent = isUrgent
    }
}
