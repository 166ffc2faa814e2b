/// Per-request state, owned by libmicrohttpd's `*con_cls` from the first access-handler call
/// until the completion callback.
///
/// Fields are touched by the MHD thread serving the connection; `response` is written by the
/// responder's task before `MHD_resume_connection`, whose mutex orders it before the next read.
final class RequestContext: @unchecked Sendable {
    /// The `MHD_Connection`; used only by the server's callbacks.
    let connection: OpaquePointer
    var request: HTTPRequest
    var body: [UInt8] = []
    var bodyTooLarge = false
    /// The responder has been started; further calls before the response only drain input.
    var dispatched = false
    var response: HTTPResponse?

    init(connection: OpaquePointer, request: HTTPRequest) {
        self.connection = connection
        self.request = request
    }
}
