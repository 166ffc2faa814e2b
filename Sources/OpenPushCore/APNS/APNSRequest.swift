/// Everything one push sends except the device token (the `:path`) and the JWT, which belong
/// to the connection that carries it.
public struct APNSRequest: Sendable, Equatable {
    public var headers: APNSHeaders
    public var payload: JSONValue
    /// `payload` as compact JSON: the request body.
    public var payloadBytes: [UInt8]

    /// APNs refuses a larger body (`413 PayloadTooLarge`).
    public static let maxPayloadBytes = 4096

    public init(headers: APNSHeaders, payload: JSONValue) {
        self.headers = headers
        self.payload = payload
        self.payloadBytes = payload.serializedBytes
    }
}
