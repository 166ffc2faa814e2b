public import APNs
public import HTTPServer
import OpenPushCore

/// Publishes the simulator's control API (`APNSSimulator.control`) over HTTP/1.1: used by
/// `openpush apns-sim`, `openpush dev` and tests whose client reads the simulator from another process.
public struct APNSSimulatorControlResponder: HTTPResponder {
    public let simulator: APNSSimulator

    public init(simulator: APNSSimulator) {
        self.simulator = simulator
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let answer = simulator.control(method: request.method.rawValue, path: request.path, query: request.query, body: request.body)
        guard let body = answer.body else { return HTTPResponse(status: answer.status) }
        return HTTPResponse(
            status: answer.status, headers: ["Content-Type": "application/json"], body: body.serializedBytes + [0x0A])
    }
}
