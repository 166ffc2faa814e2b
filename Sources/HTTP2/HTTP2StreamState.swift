/// Per-stream bookkeeping of `HTTP2ClientSession`: the request body still to send and the
/// response as it arrives.
final class HTTP2StreamState {
    let requestBody: [UInt8]
    var requestBodyOffset = 0

    var status: Int?
    /// True while the headers being read belong to an interim 1xx response, which is dropped.
    var inInformationalHeaders = false
    var headers: [HTTP2Header] = []
    var body: [UInt8] = []
    /// END_STREAM seen from the peer: the response is complete.
    var remoteEnded = false

    init(requestBody: [UInt8]) {
        self.requestBody = requestBody
    }
}
