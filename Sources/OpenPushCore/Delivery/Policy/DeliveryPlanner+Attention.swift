extension DeliveryPlanner {
    /// The send as it goes to this device after its quiet hours and muted threads
    /// (`DeviceAttentionPolicy`), with whether it was silenced; or why it does not go now.
    static func attend(_ send: NotificationSend, _ delivery: ClaimedDelivery, context: DeliveryContext,
                       now: Double) -> Result<(send: NotificationSend, silenced: Bool), Refusal> {
        switch DeviceAttentionPolicy.decide(send, attention: context.attention(for: delivery), now: now) {
        case .send: .success((send, false))
        case .silence: .success((DeviceAttentionPolicy.silenced(send), true))
        case .suppress(let reason): .failure(.suppressed(reason))
        case .deferUntil(let until): .failure(.deferred(until: until))
        }
    }
}
