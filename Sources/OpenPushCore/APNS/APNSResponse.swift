/// What APNs answered. A rejection is a response too (`status` ≠ 200 with a `reason`);
/// only a request that got no answer at all is an error (`APNSTransportError`).
package struct APNSResponse: Sendable, Hashable {
    package var status: Int
    /// The `apns-id` APNs echoed (or assigned when the request had none).
    package var apnsID: String?
    /// `apns-unique-id`, sent by the sandbox servers for looking a push up in Apple's console.
    package var apnsUniqueID: String?
    /// The `reason` of a rejection; nil on 200.
    package var reason: APNSReason?
    /// On 410: when APNs learned the token was no longer valid, in milliseconds since 1970.
    package var timestamp: Int64?
    /// `apns-request-id`: channel management and broadcast answers carry it.
    package var requestID: String?
    /// `apns-channel-id`: the channel a management request created or named.
    package var channelID: String?
    /// A JSON object body other than a rejection's (a channel read or list answers one).
    package var body: JSONObject?

    package init(status: Int, apnsID: String? = nil, apnsUniqueID: String? = nil, reason: APNSReason? = nil,
                timestamp: Int64? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.reason = reason
        self.timestamp = timestamp
    }

    package var isAccepted: Bool { status == 200 }
}
