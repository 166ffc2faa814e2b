import HTTPServer
import OpenPushCore

/// Answers pushes on the simulator's push listener: every path is a subscription's endpoint.
struct WebPushSimulatorResponder: HTTPResponder {
    let simulator: WebPushSimulator

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        await simulator.receive(request)
    }
}
