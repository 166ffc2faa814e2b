public import OpenPushCore

/// One push as it goes on the wire: `POST /3/device/<deviceToken>` with the `apns-*`
/// headers and the JSON payload. Building the payload is the caller's business.
public struct APNSPushRequest: Sendable, Hashable {
    /// The device (or Live Activity / push-to-start) token, hex.
    public var deviceToken: String
    public var pushType: APNSPushType
    /// `apns-topic`: the bundle id, plus a suffix such as `.push-type.liveactivity`.
    public var topic: String
    /// `apns-priority`: 10 (immediately), 5 (power-considerate), 1 (lowest); nil leaves APNs' default.
    public var priority: Int?
    /// `apns-expiration` in unix seconds; 0 means "deliver now or never"; nil leaves it out.
    public var expiration: Int64?
    /// `apns-id`, a canonical UUID; APNs echoes it. Fixed per delivery so retries share it.
    public var apnsID: String?
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// The JSON payload, at most 4096 bytes.
    public var payload: [UInt8]

    public init(
        deviceToken: String, pushType: APNSPushType, topic: String, priority: Int? = nil,
        expiration: Int64? = nil, apnsID: String? = nil, collapseID: String? = nil, payload: [UInt8]
    ) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.payload = payload
    }
}
