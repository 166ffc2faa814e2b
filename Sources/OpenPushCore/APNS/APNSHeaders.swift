/// The `apns-*` request headers of one push, in the order they go on the wire.
package struct APNSHeaders: Sendable, Hashable {
    package var pushType: APNSPushType
    package var topic: String
    package var priority: Int
    /// Unix seconds after which APNs stops trying to deliver.
    package var expiration: Int
    /// Canonical UUID text, fixed per delivery row so a retry carries the same id.
    package var apnsID: String
    package var collapseID: String?

    package init(pushType: APNSPushType, topic: String, priority: Int, expiration: Int, apnsID: String, collapseID: String? = nil) {
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
    }

    /// Name–value pairs for the HTTP/2 request; `apns-collapse-id` only when there is one.
    package var fields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("apns-push-type", pushType.rawValue),
            ("apns-topic", topic),
            ("apns-priority", String(priority)),
            ("apns-expiration", String(expiration)),
            ("apns-id", apnsID),
        ]
        if let collapseID { fields.append(("apns-collapse-id", collapseID)) }
        return fields
    }
}
