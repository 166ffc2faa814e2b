import APNs
public import HTTPServer
import OpenPushServer

/// OpenPush as a client in another process sees it: the application on a real HTTP port with its
/// delivery engine running, and the APNs simulator's control API on another port, both on
/// 127.0.0.1. Built on `DeliveryHarness`, so PostgreSQL and the simulator are the harness's.
public struct ServedOpenPush: Sendable {
    public let harness: DeliveryHarness
    public let http: HTTPServer
    public let control: HTTPServer

    /// `http://127.0.0.1:<port>`, what a OneSignal client takes as its host.
    public var baseURL: String { "http://127.0.0.1:\(http.port)" }
    /// The simulator's control API (`GET /pushes`, …).
    public var controlURL: String { "http://127.0.0.1:\(control.port)" }

    public static func start() async throws -> ServedOpenPush {
        let harness = try await DeliveryHarness.make()
        let http = try harness.app.startHTTP()
        let control = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 1),
                                 responder: APNSSimulatorControlResponder(simulator: harness.simulator))
        try control.start()
        harness.engine.start()
        return ServedOpenPush(harness: harness, http: http, control: control)
    }

    public func shutdown() async {
        await http.shutdown()
        await control.shutdown()
        await harness.shutdown()
    }
}
