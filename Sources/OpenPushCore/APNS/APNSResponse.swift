/// What APNs answered. A rejection is a response too (`status` ≠ 200 with a `reason`);
/// only a request that got no answer at all is an error (`APNSTransportError`).
public struct APNSResponse: Sendable, Hashable {
    public var status: Int
    /// The `apns-id` APNs echoed (or assigned when the request had none).
    public var apnsID: String?
    /// `apns-unique-id`, sent by the sandbox servers for looking a push up in Apple's console.
    public var apnsUniqueID: String?
    /// The `reason` of a rejection; nil on 200.
    public var reason: APNSReason?
    /// On 410: when APNs learned the token was no longer valid, in milliseconds since 1970.
    public var timestamp: Int64?
    /// `apns-request-id`: channel management and broadcast answers carry it.
    public var requestID: String?
    /// `apns-channel-id`: the channel a management request created or named.
    public var channelID: String?
    /// A JSON object body other than a rejection's (a channel read or list answers one).
    public var body: JSONObject?

    public init(status: Int, apnsID: String? = nil, apnsUniqueID: String? = nil, reason: APNSReason? = nil,
                timestamp: Int64? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.reason = reason
        self.timestamp = timestamp
    }

    public var isAccepted: Bool { status == 200 }
}
