import Crypto
import Foundation
import HTTPServer
import Synchronization

/// A local stand-in for a browser push service (RFC 8030), for development and tests:
///
/// - `POST /push/{id}` (any path is one subscription's endpoint) over HTTP/1.1, checked as a
///   push service checks it — the VAPID `Authorization` (RFC 8292: an ES256 JWT verified against
///   `k=`, `aud` this service's origin, `exp` within 24 h, a `sub`), `Content-Encoding: aes128gcm`,
///   a `TTL`, a body of at most 4,096 bytes — and answered `201` with a `Location`, or `400`,
///   `401`, `403` or `413` as a real service would.
/// - Like a browser, it decrypts each push (RFC 8291) for a subscription whose keys it was given
///   or made, and records it with its headers.
/// - A control API (`control(method:path:query:body:)`, also over HTTP/1.1 on `controlPort`)
///   registers subscriptions, lists received pushes, forces answers per endpoint, holds an
///   endpoint's requests, and counts.
///
/// Before it listens, it decrypts RFC 8291 Appendix A's message with the RFC's keys: a
/// decryptor that does not get the RFC's plaintext refuses to start.
package final class WebPushSimulator: Sendable {
    package let configuration: Configuration

    struct State {
        var started = false
        var pushServer: HTTPServer?
        var controlServer: HTTPServer?
        var subscriptions: [String: Subscription] = [:]
        var forced: [String: ForcedAnswer] = [:]
        var held: [String: [CheckedContinuation<Void, Never>]] = [:]
        var holding: Set<String> = []
        var received: [ReceivedPush] = []
        var counters = Counters()
        var nextMessage = 0
    }

    let state = Mutex(State())
    /// `Authorization` headers whose signature verified, with their claims: a sender signs one
    /// header per origin for hours, so each is verified once (its claims are checked every time).
    let verifiedVAPID = Mutex([String: VAPIDClaims]())

    package init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    package var port: UInt16 { state.withLock { $0.pushServer?.port ?? 0 } }
    package var controlPort: UInt16? { state.withLock { $0.controlServer?.port } }

    private var urlHost: String { configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host }
    /// Where endpoints live: `endpoint(path:)` is one subscription's URL.
    package var origin: String { "http://\(urlHost):\(port)" }
    package var controlURL: String? { controlPort.map { "http://\(urlHost):\($0)" } }

    package func endpoint(path: String) -> String { origin + (path.hasPrefix("/") ? path : "/" + path) }

    /// Checks the decryptor against RFC 8291's vector, then binds both listeners. Call once.
    package func start() throws {
        try Self.selfCheck()
        try state.withLock { state in
            guard !state.started else { throw WebPushSimulatorError("a WebPushSimulator can be started only once") }
            state.started = true
        }
        let responder = WebPushSimulatorResponder(simulator: self)
        // Bodies past the push limit are read so the service can answer 413 itself.
        let pushServer = HTTPServer(
            configuration: HTTPServerConfiguration(host: configuration.host, port: configuration.port,
                                                   threadPoolSize: configuration.threads, maxBodySize: 64 << 10),
            responder: responder)
        let controlServer = configuration.controlPort.map {
            HTTPServer(configuration: HTTPServerConfiguration(host: configuration.host, port: $0, threadPoolSize: 1),
                       responder: WebPushSimulatorControlResponder(simulator: self))
        }
        try pushServer.start()
        do {
            try controlServer?.start()
        } catch {
            Task { await pushServer.shutdown() }
            throw error
        }
        state.withLock { state in
            state.pushServer = pushServer
            state.controlServer = controlServer
        }
    }

    /// Releases held requests and stops both listeners.
    package func stop() async {
        releaseAll()
        let servers = state.withLock { state -> [HTTPServer] in
            defer { state.pushServer = nil; state.controlServer = nil }
            return [state.pushServer, state.controlServer].compactMap { $0 }
        }
        for server in servers { await server.shutdown() }
    }
}
