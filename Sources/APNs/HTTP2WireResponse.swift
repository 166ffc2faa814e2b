import HTTP2

/// A response as it came off the wire, before anyone read it: what the connection hands to a
/// request's completion. APNs pushes read it into an `APNSResponse`; requests of another
/// HTTP/2 push service (FCM) are read by their caller.
package struct HTTP2WireResponse: Sendable {
    package var status: Int
    var headers: [HTTP2Header]
    package var body: [UInt8]

    init(status: Int, headers: [HTTP2Header], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header of that name (lower case, as HTTP/2 sends names).
    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}
