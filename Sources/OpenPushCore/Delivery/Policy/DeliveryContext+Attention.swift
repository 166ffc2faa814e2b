extension DeliveryContext {
    /// Records a device's preferences, under its app: only the device's own app's deliveries see them.
    package mutating func add(_ attention: DeviceAttention, appID: String, subscriptionID: String) {
        self.attention[Key(appID: appID, id: subscriptionID)] = attention
    }

    /// The preferences of the delivery's device, if it set any.
    package func attention(for delivery: ClaimedDelivery) -> DeviceAttention? {
        attention[Key(appID: delivery.appID, id: delivery.subscriptionID)]
    }
}
