import Crypto
import EventLoop
import Foundation
import HTTP2
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A local, APNs-compatible HTTP/2 server for development and tests: it checks requests the
/// way Apple does (provider token, topic and push type, priority, `apns-id`, collapse id,
/// payload), answers with Apple's statuses and `{"reason": …}` bodies, echoes `apns-id`, and
/// records what it accepted. Device-token prefixes choose other answers (see
/// `Behaviour.builtIn`), and `goAway(afterStreams:)` makes it send GOAWAY.
///
///     let simulator = try APNSSimulator(.init(acceptAnyToken: true))
///     try simulator.start()
///     // point a client at simulator.endpoint, then:
///     simulator.accepted()
///
/// Runs on its own threads (one accepting, one per connection), never on Swift's
/// cooperative pool. The process must ignore SIGPIPE when TLS is used.
package final class APNSSimulator: Sendable {
    package let configuration: Configuration
    /// The certificate clients must trust, as PEM; `nil` over cleartext.
    package let certificatePEM: String?
    let tlsContext: TLSServerContext?
    let requestCheck: APNSSimulatorRequestCheck

    enum Phase { case idle, running, stopped }

    struct State {
        var phase = Phase.idle
        var listener: Int32 = -1
        var port: UInt16 = 0
        var connections: [Int: Int32] = [:]
        var nextConnectionID = 0
        var behaviours: [String: Behaviour]
        /// Answers for every push over a certificate's connections, by the certificate's UID.
        var certificateBehaviours: [String: Behaviour] = [:]
        var goAwayAfterStreams: Int?
        var recorded: [RecordedPush] = []
        var acceptedCount = 0
        /// Channels made through the management endpoints (`APNSSimulator+Channels`).
        var channels = ChannelTable()
    }

    let state: Mutex<State>
    /// `Configuration.maxRate`, shared by every connection; apart from `state` so answering
    /// does not wait for a control API read.
    private let rateLimit: Mutex<APNSSimulatorRateLimit?>
    private let threads = DispatchGroup()

    /// Prepares the keys and, for TLS, the certificate (written out at once, so a client can
    /// be configured before `start()`). Does not listen yet.
    package init(_ configuration: Configuration) throws {
        self.configuration = configuration
        var keys: [String: P256VerifyingKey] = [:]
        for (keyID, der) in configuration.providerKeys {
            keys[keyID] = try P256VerifyingKey(publicKeyDER: der)
        }
        requestCheck = APNSSimulatorRequestCheck(
            providerKeys: keys, acceptAnyToken: configuration.acceptAnyToken, bundleIDs: configuration.bundleIDs)
        switch configuration.transport {
        case .cleartext:
            if configuration.clientCAPath != nil {
                throw APNSSimulatorError("a client CA needs the TLS transport: client certificates come with TLS")
            }
            certificatePEM = nil
            tlsContext = nil
        case .tls(let path):
            let certificate = try SelfSignedCertificate.generate()
            if let path {
                try Data(certificate.certificatePEM.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
            certificatePEM = certificate.certificatePEM
            tlsContext = try TLSServerContext(
                certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM, alpn: ["h2"],
                clientCAFile: configuration.clientCAPath)
        }
        state = Mutex(State(behaviours: Behaviour.builtIn(slowDelay: configuration.slowDelay)))
        rateLimit = Mutex(configuration.maxRate.map { APNSSimulatorRateLimit(rate: max($0, 0.001)) })
    }

    /// The bound port; valid after `start()`.
    package var port: UInt16 { state.withLock { $0.port } }

    /// Where a client sends pushes: `http://127.0.0.1:<port>` (h2c) or
    /// `https://localhost:<port>` (TLS; the certificate names localhost and the loopback IPs).
    package var endpoint: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        switch configuration.transport {
        case .cleartext: return "http://\(host):\(port)"
        case .tls: return "https://\(configuration.host == "127.0.0.1" ? "localhost" : host):\(port)"
        }
    }

    /// Binds and starts accepting. Call once.
    package func start() throws {
        try state.withLock { state in
            guard state.phase == .idle else { throw APNSSimulatorError("an APNSSimulator can be started only once") }
        }
        let (listener, port) = try Self.listen(host: configuration.host, port: configuration.port)
        state.withLock { state in
            state.listener = listener
            state.port = port
            state.phase = .running
        }
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(listener)
            threads.leave()
        }
        thread.name = "apns-sim accept"
        thread.start()
    }

    /// Stops accepting, ends every connection, and waits (briefly) for the threads to finish.
    package func stop() {
        let sockets: [Int32] = state.withLock { state in
            guard state.phase == .running else {
                state.phase = .stopped
                return []
            }
            state.phase = .stopped
            return [state.listener] + Array(state.connections.values)
        }
        // shutdown, not close: the owning threads close, so a descriptor is never reused under them.
        for socket in sockets { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
        _ = threads.wait(timeout: .now() + 5)
    }

    // MARK: Control

    /// Answers valid pushes to tokens starting with `prefix` (hex, any case) with
    /// `behaviour`; `nil` removes the entry, built-in ones included.
    package func setBehaviour(_ behaviour: Behaviour?, forTokenPrefix prefix: String) {
        state.withLock { $0.behaviours[prefix.lowercased()] = behaviour }
    }

    /// The current prefix table, built-in entries included.
    package func behaviours() -> [String: Behaviour] {
        state.withLock { $0.behaviours }
    }

    /// Answers every push over the connections of the client certificate whose UID is `uid`
    /// with `behaviour` (e.g. `403 BadCertificate`), before any other check; `nil` removes it.
    package func setCertificateBehaviour(_ behaviour: Behaviour?, forUID uid: String) {
        state.withLock { $0.certificateBehaviours[uid] = behaviour }
    }

    /// The certificate table, by UID.
    package func certificateBehaviours() -> [String: Behaviour] {
        state.withLock { $0.certificateBehaviours }
    }

    func certificateBehaviour(forUID uid: String) -> Behaviour? {
        state.withLock { $0.certificateBehaviours[uid] }
    }

    /// Every connection sends GOAWAY after its `streams`-th request, with that stream as the
    /// last processed one (later streams are refused, and the client must retry them on a
    /// new connection, which again gets `streams`). `nil` turns this off.
    package func goAway(afterStreams streams: Int?) {
        state.withLock { $0.goAwayAfterStreams = streams.map { max(1, $0) } }
    }

    /// How many pushes were answered 200 since the start (or `reset()`), beyond `recordLimit` too.
    package var acceptedCount: Int { state.withLock { $0.acceptedCount } }

    /// The pushes answered 200, oldest first (at most `recordLimit`): the newest `limit` (all
    /// when nil) that `matching` keeps, copied out under the lock. No reference to the record
    /// is left behind: a caller holding one made the next push copy all 50,000 records, so a
    /// client polling the control API while a benchmark ran slowed every connection.
    package func accepted(limit: Int? = nil, matching: (RecordedPush) -> Bool = { _ in true }) -> [RecordedPush] {
        state.withLock { state in
            var newest: [RecordedPush] = []
            for push in state.recorded.reversed() where matching(push) {
                if let limit, newest.count >= limit { break }
                newest.append(push)
            }
            return newest.reversed()
        }
    }

    /// Forgets recorded pushes, restores the built-in behaviours and turns GOAWAY off.
    package func reset() {
        state.withLock { state in
            state.recorded.removeAll()
            state.acceptedCount = 0
            state.behaviours = Behaviour.builtIn(slowDelay: configuration.slowDelay)
            state.goAwayAfterStreams = nil
            state.certificateBehaviours.removeAll()
            state.channels.behaviours.removeAll()
        }
    }

    /// Removes the recorded pushes (and zeroes `acceptedCount`) only.
    package func clearAccepted() {
        state.withLock { state in
            state.recorded.removeAll()
            state.acceptedCount = 0
        }
    }

    // MARK: Used by connections

    var isStopping: Bool { state.withLock { $0.phase != .running } }

    func behaviour(forToken token: String) -> Behaviour? {
        state.withLock { $0.behaviours.behaviour(forToken: token) }
    }

    var goAwayAfterStreams: Int? { state.withLock { $0.goAwayAfterStreams } }

    /// Under `maxRate`: how long a push that arrived now waits for its answer; `nil` without a cap.
    func rateDelay() -> Duration? {
        // Without a cap, no lock per push: the connections' threads would contend for it.
        guard configuration.maxRate != nil else { return nil }
        // `rateLimit` is set exactly when `maxRate` is.
        return rateLimit.withLock { limit -> Duration? in
            let now = MonotonicClock.now()
            return .seconds(limit!.reserve(now: now) - now)
        }
    }

    func record(_ push: RecordedPush) {
        let limit = max(1, configuration.recordLimit)
        state.withLock { state in
            state.acceptedCount += 1
            state.recorded.append(push)
            // Trim in batches so recording stays O(1) amortised.
            if state.recorded.count > limit + limit / 8 {
                state.recorded.removeFirst(state.recorded.count - limit)
            }
        }
    }

    // MARK: Sockets

    private static func listen(host: String, port: UInt16) throws(APNSSimulatorError) -> (socket: Int32, port: UInt16) {
        do {
            return try TCPListener.open(host: host, port: port)
        } catch {
            throw APNSSimulatorError(error.description)
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
                APNSSimulatorConnection(simulator: self, socket: socket, id: id).run()
                state.withLock { _ = $0.connections.removeValue(forKey: id) }
                close(socket)
                threads.leave()
            }
            thread.name = "apns-sim connection \(id)"
            thread.start()
        }
    }
}
