import Crypto
import EventLoop
import Foundation
import HTTPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A local stand-in for Firebase Cloud Messaging (HTTP v1) and Google's OAuth token endpoint,
/// for development and tests:
///
/// - `POST /v1/projects/{project_id}/messages:send` over h2c (prior knowledge) with a bearer
///   access token it issued; answers like FCM (`{"name": …}`, or FCM's error bodies with their
///   `FcmError` details) and records what it accepted.
/// - `POST /token` (HTTP/1.1) exchanges an RS256 JWT assertion signed by one of the configured
///   service accounts for an access token, or answers Google's `400 invalid_grant`.
/// - A control API (`control(method:path:query:body:)`, also over HTTP/1.1 on `controlPort`)
///   lists accepted messages, unregisters tokens, injects failures and revokes access tokens.
///
///     let simulator = try FCMSimulator(.init(serviceAccounts: [account]))
///     try simulator.start()
///     // token URL: simulator.tokenURL, FCM URL: simulator.endpoint
///
/// The h2c side runs on its own threads (one accepting, one per connection).
package final class FCMSimulator: Sendable {
    package let configuration: Configuration

    struct Account {
        var serviceAccount: ServiceAccount
        var verifier: RSAVerifyingKey
    }

    enum Phase { case idle, running, stopped }

    struct IssuedToken {
        var clientEmail: String
        var projectID: String
        var expiresAt: Date
    }

    /// `POST /failures`: the next `remaining` sends answer `status`.
    struct InjectedFailure {
        var status: FailureStatus
        var remaining: Int
        var retryAfter: Int?
    }

    struct State {
        var phase = Phase.idle
        var listener: Int32 = -1
        var port: UInt16 = 0
        var connections: [Int: Int32] = [:]
        var nextConnectionID = 0
        var tokenServer: HTTPServer?
        var controlServer: HTTPServer?
        var accessTokens: [String: IssuedToken] = [:]
        var unregistered: Set<String> = []
        var failures: [InjectedFailure] = []
        var recorded: [SentMessage] = []
        var counters = Counters()
    }

    /// Keyed by `client_email`.
    let accounts: [String: Account]
    let state = Mutex(State())
    private let threads = DispatchGroup()

    /// Parses the service accounts' keys. Does not listen yet.
    package init(_ configuration: Configuration) throws {
        self.configuration = configuration
        var accounts: [String: Account] = [:]
        for account in configuration.serviceAccounts {
            guard accounts[account.clientEmail] == nil else {
                throw FCMSimulatorError("service account \(account.clientEmail) is given twice")
            }
            do {
                accounts[account.clientEmail] = Account(serviceAccount: account, verifier: try RSAVerifyingKey(pem: account.privateKeyPEM))
            } catch {
                throw FCMSimulatorError("service account \(account.clientEmail): private_key is not an RSA PEM key: \(error)")
            }
        }
        self.accounts = accounts
    }

    /// The h2c port; valid after `start()`.
    package var port: UInt16 { state.withLock { $0.port } }
    package var tokenPort: UInt16 { state.withLock { $0.tokenServer?.port ?? 0 } }
    package var controlPort: UInt16? { state.withLock { $0.controlServer?.port } }
    /// h2c connections accepted since the start (tests: how many a client opened).
    package var connectionsAccepted: Int { state.withLock { $0.nextConnectionID } }

    private var urlHost: String { configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host }
    /// The FCM base URL a client is configured with (`OPENPUSH_FCM_URL`).
    package var endpoint: String { "http://\(urlHost):\(port)" }
    /// The token URL (`OPENPUSH_FCM_TOKEN_URL`), which assertions must name as `aud`.
    package var tokenURL: String { "http://\(urlHost):\(tokenPort)/token" }
    package var controlURL: String? { controlPort.map { "http://\(urlHost):\($0)" } }

    /// Binds the three listeners and starts serving. Call once.
    package func start() throws {
        try state.withLock { state in
            guard state.phase == .idle else { throw FCMSimulatorError("an FCMSimulator can be started only once") }
        }
        let (listener, port) = try Self.listen(host: configuration.host, port: configuration.port)
        let responder = FCMSimulatorResponder(simulator: self)
        let tokenServer = HTTPServer(
            configuration: HTTPServerConfiguration(host: configuration.host, port: configuration.tokenPort, threadPoolSize: 1),
            responder: responder)
        let controlServer = configuration.controlPort.map {
            HTTPServer(configuration: HTTPServerConfiguration(host: configuration.host, port: $0, threadPoolSize: 1),
                       responder: responder)
        }
        do {
            try tokenServer.start()
            try controlServer?.start()
        } catch {
            close(listener)
            throw error
        }
        state.withLock { state in
            state.listener = listener
            state.port = port
            state.tokenServer = tokenServer
            state.controlServer = controlServer
            state.phase = .running
        }
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(listener)
            threads.leave()
        }
        thread.name = "fcm-sim accept"
        thread.start()
    }

    /// Stops every listener, ends every connection, and waits (briefly) for the threads.
    package func stop() async {
        let (sockets, servers): ([Int32], [HTTPServer]) = state.withLock { state in
            let servers = [state.tokenServer, state.controlServer].compactMap { $0 }
            guard state.phase == .running else {
                state.phase = .stopped
                return ([], servers)
            }
            state.phase = .stopped
            return ([state.listener] + Array(state.connections.values), servers)
        }
        // shutdown, not close: the owning threads close, so a descriptor is never reused under them.
        for socket in sockets { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
        for server in servers { await server.shutdown() }
        _ = threads.wait(timeout: .now() + 5)
    }

    var isStopping: Bool { state.withLock { $0.phase != .running } }

    // MARK: Sockets

    private static func listen(host: String, port: UInt16) throws(FCMSimulatorError) -> (socket: Int32, port: UInt16) {
        do {
            return try TCPListener.open(host: host, port: port)
        } catch {
            throw FCMSimulatorError(error.description)
        }
    }

    private func acceptLoop(_ listener: Int32) {
        defer { close(listener) }
        while let socket = TCPListener.accept(listener, isStopping: { isStopping }) {
            let id: Int? = state.withLock { state in
                guard state.phase == .running else { return nil }
                state.nextConnectionID += 1
                state.connections[state.nextConnectionID] = socket
                return state.nextConnectionID
            }
            guard let id else {
                close(socket)
                return
            }
            threads.enter()
            let thread = Thread { [self] in
                FCMSimulatorConnection(simulator: self, socket: socket).run()
                state.withLock { _ = $0.connections.removeValue(forKey: id) }
                close(socket)
                threads.leave()
            }
            thread.name = "fcm-sim connection \(id)"
            thread.start()
        }
    }
}
