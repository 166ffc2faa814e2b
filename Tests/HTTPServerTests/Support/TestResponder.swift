import Foundation
import HTTPServer

/// What `/echo` reports about the request it saw.
struct Echo: Codable, Equatable {
    var method: String
    var path: String
    var query: [String: String]
    var queryValues: [String: [String]]
    var body: String
    var requestID: String
    var custom: String?
    var remoteAddress: String?
}

/// `/echo` describes the request; `/slow?ms=N` answers after sleeping; `/stream` streams
/// `pieces` pieces of `size` bytes (`StreamProbe.piece`), piece `empty` empty, throwing when asked
/// for piece `fail`, with a `Content-Length` unless `length=no`, and reports to `probe`; with `gate=1` each piece after the first
/// waits for `gate`;
/// anything else is 404.
struct TestResponder: HTTPResponder {
    var probe = StreamProbe()
    /// With `gate=1`, every piece after the first waits for it.
    var gate: StreamGate?

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/echo":
            let echo = Echo(
                method: request.method.rawValue,
                path: request.path,
                query: request.query,
                queryValues: request.queryValues,
                body: String(decoding: request.body, as: UTF8.self),
                requestID: request.requestID,
                custom: request.headers["x-custom-header"],
                remoteAddress: request.remoteAddress
            )
            let body = (try? JSONEncoder().encode(echo)) ?? Data()
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body))
        case "/slow":
            let milliseconds = Int(request.query["ms"] ?? "") ?? 100
            try? await Task.sleep(for: .milliseconds(milliseconds))
            return HTTPResponse(status: 200, body: Array("done".utf8))
        case "/stream":
            let pieces = Int(request.query["pieces"] ?? "") ?? 1
            let size = Int(request.query["size"] ?? "") ?? 1
            let empty = request.query["empty"].flatMap { Int($0) }
            let fail = request.query["fail"].flatMap { Int($0) }
            let length = UInt64(StreamProbe.body(pieces: 1, size: size).count * (pieces - (empty == nil ? 0 : 1)))
            let probe = self.probe
            let gate = request.query["gate"] == "1" ? self.gate : nil
            let stream = HTTPBodyStream(length: request.query["length"] == "no" ? nil : length, next: { index in
                probe.asked()
                if index > 0 { await gate?.wait() }
                if index == fail { throw StreamFailure() }
                guard index < pieces else { return nil }
                return index == empty ? [] : StreamProbe.piece(index, size: size)
            }, ended: { probe.end($0) })
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], stream: stream)
        default:
            return HTTPResponse(status: 404, body: Array("not found".utf8))
        }
    }

    func bodyTooLarge(_ request: HTTPRequest) async -> HTTPResponse {
        // Status 200 on purpose: the server must send 413 regardless.
        HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("too large: \(request.body.count)".utf8))
    }
}

struct StreamFailure: Error {}
