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

/// `/echo` describes the request; `/slow?ms=N` answers after sleeping; anything else is 404.
struct TestResponder: HTTPResponder {
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
        default:
            return HTTPResponse(status: 404, body: Array("not found".utf8))
        }
    }

    func bodyTooLarge(_ request: HTTPRequest) async -> HTTPResponse {
        // Status 200 on purpose: the server must send 413 regardless.
        HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("too large: \(request.body.count)".utf8))
    }
}
