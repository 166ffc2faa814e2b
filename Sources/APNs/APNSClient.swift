import Crypto
import Foundation
public import OpenPushCore

/// Sends pushes to APNs over a few long-lived HTTP/2 connections per (credential,
/// environment), opened on first use and closed after `idleTimeout` without pushes, or when
/// the credential is retired. A rejection is a result (`APNSResponse` with a status and
/// reason); only a request that got no answer throws (`APNSTransportError`).
///
/// One thread drives every connection of the client (`APNSEventLoop`), never Swift's
/// cooperative pool, however many credentials there are. Call `shutdown()` before dropping
/// the client: the thread keeps it alive until then.
public final class APNSClient: Sendable {
    public let configuration: APNSClientConfiguration
    private let endpoints: [APNSEnvironment: APNSEndpoint]
    private let counters = APNSClientCounters()
    private let loop: APNSEventLoop

    /// Checks the endpoint URLs and loads the trust store (and `caFile`) when an endpoint uses TLS.
    public init(configuration: APNSClientConfiguration = APNSClientConfiguration(), logger: Logger = .discarding()) throws {
        self.configuration = configuration
        var endpoints: [APNSEnvironment: APNSEndpoint] = [:]
        for environment in APNSEnvironment.allCases {
            endpoints[environment] = try APNSEndpoint(url: configuration.url(for: environment))
        }
        self.endpoints = endpoints
        let tlsContext = endpoints.values.contains { $0.usesTLS }
            ? try TLSClientContext(caFile: configuration.caFile, alpn: ["h2"])
            : nil
        loop = APNSEventLoop(
            endpoints: endpoints, tlsContext: tlsContext, configuration: configuration, counters: counters, logger: logger)
    }

    /// Sends one push and waits for APNs' answer.
    public func send(
        _ request: APNSPushRequest, credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        let result = await withCheckedContinuation { continuation in
            submit([request], credential: credential, environment: environment) { _, result in
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
            submit(requests, credential: credential, environment: environment) { index, result in
                collector.record(result, at: index)
            }
        }
    }

    public var metrics: APNSClientMetrics {
        APNSClientMetrics(
            openConnections: counters.openConnections.load(ordering: .relaxed),
            inFlightStreams: counters.inFlightStreams.load(ordering: .relaxed),
            queuedRequests: counters.queuedRequests.load(ordering: .relaxed),
            openPools: counters.openPools.load(ordering: .relaxed))
    }

    /// Connections opened since the client started, reconnects included.
    public var connectionsOpened: Int { counters.connectionsOpened.load(ordering: .relaxed) }

    /// Closes the connections of a credential that is no longer used (e.g. an app's key was
    /// replaced) and forgets its provider token. Its pushes still waiting or in flight fail
    /// with a transport error (`shutdown`); a later send with it starts afresh.
    public func retire(credential: APNSCredential) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.retire(credential) { continuation.resume() }
        }
    }

    /// Fails everything queued or in flight with `shutdown`, closes every connection and
    /// waits for the loop's thread to end. Sends after this fail at once.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.stop { continuation.resume() }
        }
    }

    private func submit(
        _ requests: [APNSPushRequest], credential: APNSCredential, environment: APNSEnvironment,
        completion: @escaping @Sendable (Int, Result<APNSResponse, APNSTransportError>) -> Void
    ) {
        let endpoint = endpoints[environment]!
        let deadline = APNSMonotonicClock.now() + configuration.requestTimeout
        let items = requests.enumerated().map { index, request in
            APNSPendingRequest(
                headers: APNSPendingRequest.headers(for: request, endpoint: endpoint), payload: request.payload,
                deadline: deadline, completion: { completion(index, $0) })
        }
        loop.submit(items, to: APNSPoolKey(credential: credential, environment: environment))
    }
}
