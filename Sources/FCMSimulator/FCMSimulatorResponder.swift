import HTTPServer
import OpenPushCore

/// Publishes the token endpoint (`POST /token`) and the control API over HTTP/1.1; each
/// listener answers both, since they share nothing but the simulator.
struct FCMSimulatorResponder: HTTPResponder {
    let simulator: FCMSimulator

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let answer = request.path == "/token"
            ? (request.method == .post ? simulator.exchangeToken(formBody: request.body)
                                       : FCMSimulator.error(405, "method \(request.method.rawValue) not allowed on /token"))
            : simulator.control(method: request.method.rawValue, path: request.path, query: request.query, body: request.body)
        guard let body = answer.body else { return HTTPResponse(status: answer.status) }
        return HTTPResponse(
            status: answer.status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body.serializedBytes + [0x0A])
    }
}
