import HTTPServer
import OpenPushCore

/// Publishes the control API over HTTP/1.1.
struct WebPushSimulatorControlResponder: HTTPResponder {
    let simulator: WebPushSimulator

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let answer = simulator.control(method: request.method.rawValue, path: request.path, query: request.query, body: request.body)
        guard let body = answer.body else { return HTTPResponse(status: answer.status) }
        return HTTPResponse(
            status: answer.status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body.serializedBytes + [0x0A])
    }
}
