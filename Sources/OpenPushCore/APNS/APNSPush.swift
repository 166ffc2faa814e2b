/// One push to one device: the request and the token it goes to (`POST /3/device/<deviceToken>`).
/// What the APNs client sends; the request's `payloadBytes` go on the wire as they are.
public struct APNSPush: Sendable, Equatable {
    /// The device (or Live Activity / push-to-start) token, hex.
    public var deviceToken: String
    public var request: APNSRequest

    public init(deviceToken: String, request: APNSRequest) {
        self.deviceToken = deviceToken
        self.request = request
    }
}
