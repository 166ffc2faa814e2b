import Crypto
import Foundation
public import OpenPushCore
import Synchronization

/// Sends pushes to APNs over a few long-lived HTTP/2 connections per (credential,
/// environment), opened on first use. A rejection is a result (`APNSResponse` with a status
/// and reason); only a request that got no answer throws (`APNSTransportError`).
///
/// Connections run on threads of their own, never on Swift's cooperative pool. Call
/// `shutdown()` before dropping the client: its threads keep it alive until then.
public final class APNSClient: Sendable {
    private struct PoolKey: Hashable {
        var credential: APNSCredential
        var environment: APNSEnvironment
    }

    private struct State {
        var pools: [PoolKey: APNSConnectionPool] = [:]
        var signers: [APNSCredential: APNSJWTSigner] = [:]
        var isShutDown = false
    }

    public let configuration: APNSClientConfiguration
    private let endpoints: [APNSEnvironment: APNSEndpoint]
    private let tlsContext: TLSClientContext?
    private let counters = APNSClientCounters()
    private let state = Mutex(State())
    private let logger: Logger

    /// Checks the endpoint URLs and loads the trust store (and `caFile`) when an endpoint uses TLS.
    public init(configuration: APNSClientConfiguration = APNSClientConfiguration(), logger: Logger = .discarding()) throws {
        self.configuration = configuration
        self.logger = logger
        var endpoints: [APNSEnvironment: APNSEndpoint] = [:]
        for environment in APNSEnvironment.allCases {
            endpoints[environment] = try APNSEndpoint(url: configuration.url(for: environment))
        }
        self.endpoints = endpoints
        tlsContext = endpoints.values.contains { $0.usesTLS }
            ? try TLSClientContext(caFile: configuration.caFile, alpn: ["h2"])
            : nil
    }

    /// Sends one push and waits for APNs' answer.
    public func send(
        _ request: APNSPushRequest, credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        let result = await withCheckedContinuation { continuation in
            pool(for: credential, environment: environment).submit([request]) { _, result in
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// Sends many pushes at once, spread over the pool's connections within each one's stream
    /// limit, and returns their outcomes in order. Cheaper than a task per push.
    public func send(
        _ requests: [APNSPushRequest], credential: APNSCredential, environment: APNSEnvironment
    ) async -> [Result<APNSResponse, APNSTransportError>] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let collector = APNSBatchCollector(count: requests.count) { continuation.resume(returning: $0) }
            pool(for: credential, environment: environment).submit(requests) { index, result in
                collector.record(result, at: index)
            }
        }
    }

    public var metrics: APNSClientMetrics {
        let queued = state.withLock { $0.pools.values.reduce(0) { $0 + $1.queue.count } }
        return APNSClientMetrics(
            openConnections: counters.openConnections.load(ordering: .relaxed),
            inFlightStreams: counters.inFlightStreams.load(ordering: .relaxed),
            queuedRequests: queued)
    }

    /// Connections opened since the client started, reconnects included.
    public var connectionsOpened: Int { counters.connectionsOpened.load(ordering: .relaxed) }

    /// Closes the connections of a credential that is no longer used (e.g. replaced by
    /// `PUT /apps/{id}`); a later send with it starts afresh.
    public func discard(credential: APNSCredential) async {
        let removed = state.withLock { state -> [APNSConnectionPool] in
            state.signers[credential] = nil
            let keys = state.pools.keys.filter { $0.credential == credential }
            return keys.compactMap { state.pools.removeValue(forKey: $0) }
        }
        await Self.shutDown(removed)
    }

    /// Fails everything queued or in flight with `shutdown`, closes every connection and
    /// waits for the connection threads to end. Sends after this fail at once.
    public func shutdown() async {
        let pools = state.withLock { state -> [APNSConnectionPool] in
            state.isShutDown = true
            defer { state.pools = [:] }
            return Array(state.pools.values)
        }
        await Self.shutDown(pools)
    }

    private static func shutDown(_ pools: [APNSConnectionPool]) async {
        guard !pools.isEmpty else { return }
        // Joining threads blocks: do it on a thread of its own.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                for pool in pools { pool.shutdownAndWait() }
                continuation.resume()
            }.start()
        }
    }

    private func pool(for credential: APNSCredential, environment: APNSEnvironment) -> APNSConnectionPool {
        let key = PoolKey(credential: credential, environment: environment)
        return state.withLock { state in
            if let pool = state.pools[key] { return pool }
            // The token is per key, whichever environment it is used with.
            let signer = state.signers[credential] ?? APNSJWTSigner(credential: credential)
            state.signers[credential] = signer
            let pool = APNSConnectionPool(
                endpoint: endpoints[environment]!, tlsContext: tlsContext, signer: signer,
                configuration: configuration, counters: counters, logger: logger)
            if state.isShutDown {
                pool.queue.shutdown()
            } else {
                state.pools[key] = pool
            }
            return pool
        }
    }
}
