import CMicroHTTPD
import Foundation

// libmicrohttpd callbacks. They are free functions in a non-main file: a closure would inherit
// main-actor isolation and trap when MHD calls it on its own threads.

/// Called by MHD several times per request: once with the headers, once per body chunk, once
/// at the end, and again after each resume.
func accessHandler(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let conCls else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = conCls.pointee else {
        let context = makeContext(server, connection, url, method)
        conCls.pointee = Unmanaged.passRetained(context).toOpaque()
        server.requestStarted()
        // Over the limit by its declared length: answer before reading any of the body.
        if let length = context.request.headers["Content-Length"].flatMap(Int.init),
           length > server.configuration.maxBodySize {
            context.bodyTooLarge = true
            return server.dispatch(context) ? .YES : queue(HTTPResponse(status: 503), context, server)
        }
        return .YES
    }
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

    if let response = context.response {
        return queue(response, context, server)
    }
    if uploadDataSize.pointee > 0 {
        // Past the limit (chunked bodies): keep reading, stop storing.
        if !context.bodyTooLarge, let uploadData {
            let size = uploadDataSize.pointee
            if context.body.count + size > server.configuration.maxBodySize {
                context.bodyTooLarge = true
                context.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                    context.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                }
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    if context.dispatched {
        return .YES
    }
    return server.dispatch(context) ? .YES : queue(HTTPResponse(status: 503), context, server)
}

/// Releases the context retained on the first call; runs for every request MHD started.
func requestCompleted(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ termination: MHD_RequestTerminationCode
) {
    guard let cls, let conCls, let existing = conCls.pointee else { return }
    Unmanaged<RequestContext>.fromOpaque(existing).release()
    conCls.pointee = nil
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().requestFinished()
}

/// Keeps the last message for `start()` errors; the module itself does not log.
func logMessage(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let length = buffer.firstIndex(of: 0) ?? buffer.count
    let message = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().recordError(message)
}

private func makeContext(
    _ server: HTTPServer,
    _ connection: OpaquePointer,
    _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?
) -> RequestContext {
    var headers = HTTPHeaders()
    withUnsafeMutablePointer(to: &headers) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, collectHeader, pointer)
    }
    var query: [String: [String]] = [:]
    withUnsafeMutablePointer(to: &query) { pointer in
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectArgument, pointer)
    }
    let clientID = headers["X-Request-Id"]
    let request = HTTPRequest(
        method: HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "GET"),
        path: url.map { String(cString: $0) } ?? "/",
        query: query.compactMapValues(\.last),
        queryValues: query,
        headers: headers,
        requestID: clientID.flatMap { RequestID.isValid($0) ? $0 : nil } ?? RequestID.generate(),
        remoteAddress: remoteAddress(connection)
    )
    return RequestContext(connection: connection, request: request)
}

private func collectHeader(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    cls.assumingMemoryBound(to: HTTPHeaders.self).pointee
        .add(name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
    return .YES
}

typealias UnescapeCallback = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int

/// Leaves every string as sent; decoding happens once, in Swift (router segments, query arguments).
func keepEscaped(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ text: UnsafeMutablePointer<CChar>?) -> Int {
    guard let text else { return 0 }
    return strlen(text)
}

/// Arguments arrive as sent (see `keepEscaped`): decode `+` and `%XX` here.
private func collectArgument(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let decode = { (raw: String) in PercentDecoding.decode(raw.replacingOccurrences(of: "+", with: " ")) }
    cls.assumingMemoryBound(to: [String: [String]].self).pointee[decode(String(cString: key)), default: []]
        .append(value.map { decode(String(cString: $0)) } ?? "")
    return .YES
}

private func remoteAddress(_ connection: OpaquePointer) -> String? {
    guard let address = openpush_mhd_client_address(connection) else { return nil }
    let length = address.pointee.sa_family == sa_family_t(AF_INET6)
        ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
    var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
        return nil
    }
    let end = host.firstIndex(of: 0) ?? host.count
    return String(decoding: host[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private func queue(_ response: HTTPResponse, _ context: RequestContext, _ server: HTTPServer) -> MHD_Result {
    var response = response
    server.finalize(&response, for: context)
    let status = (100...999).contains(response.status) ? UInt32(response.status) : 500
    let mhdResponse: OpaquePointer?
    if let stream = response.stream {
        // The response owns one retain, given back by `releaseStreamedBody` (also when queueing fails).
        let streamer = Unmanaged.passRetained(BodyStreamer(stream: stream, context: context, server: server))
        mhdResponse = MHD_create_response_from_callback(stream.length ?? UInt64.max, BodyStreamer.blockSize,
                                                        readStreamedBody, streamer.toOpaque(), releaseStreamedBody)
        if mhdResponse == nil {
            streamer.takeUnretainedValue().release()
            streamer.release()
        }
    } else {
        mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
    }
    guard let mhdResponse else { return .NO }
    defer { MHD_destroy_response(mhdResponse) }
    for (name, value) in response.headers where !HTTPHeaders.sameName(name, "Content-Length") {
        _ = MHD_add_response_header(mhdResponse, name, value)
    }
    return MHD_queue_response(context.connection, status, mhdResponse)
}
