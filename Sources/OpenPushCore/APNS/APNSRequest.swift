/// Everything one push sends except the device token (the `:path`) and the JWT, which belong
/// to the connection that carries it.
package struct APNSRequest: Sendable, Equatable {
    package var headers: APNSHeaders
    package var payload: JSONValue
    /// `payload` as compact JSON: the request body.
    package var payloadBytes: [UInt8]

    /// APNs refuses a larger body (`413 PayloadTooLarge`).
    package static let maxPayloadBytes = 4096

    package init(headers: APNSHeaders, payload: JSONValue) {
        self.headers = headers
        self.payload = payload
        self.payloadBytes = payload.serializedBytes
    }
}
