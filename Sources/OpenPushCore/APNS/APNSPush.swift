/// One push to one device: the request and the token it goes to (`POST /3/device/<deviceToken>`).
/// What the APNs client sends; the request's `payloadBytes` go on the wire as they are.
package struct APNSPush: Sendable, Equatable {
    /// The device (or Live Activity / push-to-start) token, hex.
    package var deviceToken: String
    package var request: APNSRequest

    package init(deviceToken: String, request: APNSRequest) {
        self.deviceToken = deviceToken
        self.request = request
    }
}
