import Foundation
import HTTPServer

/// Starts a server on an ephemeral port, runs `body`, and always shuts it down.
func withTestServer<T>(
    maxBodySize: Int = 1 << 20,
    shutdownGrace: Duration = .seconds(5),
    responder: TestResponder = TestResponder(),
    _ body: (HTTPServer, String) async throws -> T
) async throws -> T {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.threadPoolSize = 2
    configuration.maxBodySize = maxBodySize
    configuration.shutdownGrace = shutdownGrace
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    do {
        let result = try await body(server, "http://127.0.0.1:\(server.port)")
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// Whether every request the server read has ended within `timeout`: libmicrohttpd reports a
/// request complete just after curl has read its answer, later still on a loaded machine.
func inFlightRequestsSettle(_ server: HTTPServer, timeout: Duration = .seconds(60)) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while server.inFlightRequests != 0, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(10))
    }
    return server.inFlightRequests == 0
}
