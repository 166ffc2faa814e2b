import Crypto
import EventLoop
import Foundation
package import OpenPushCore
import Synchronization

/// Sends pushes to APNs over a few long-lived HTTP/2 connections per (credential,
/// environment), opened on first use and closed after `idleTimeout` without pushes, or when
/// the credential is retired. A rejection is a result (`APNSResponse` with a status and
/// reason); only a request that got no answer throws (`APNSTransportError`).
///
/// A fixed number of threads (`eventLoops`, each an `APNSEventLoop`) drive every connection
/// of the client, never Swift's cooperative pool, however many credentials there are. A
/// key's connections are spread over the loops, as its pushes are. Call `shutdown()` before
/// dropping the client: the threads keep it alive until then.
package final class APNSClient: Sendable {
    package let configuration: APNSClientConfiguration
    let endpoints: [APNSRoute: APNSEndpoint]
    private let counters = APNSClientCounters()
    private let loops: [APNSEventLoop]
    /// One per credential, shared by its pools on every loop: a key's signer, so it has one
    /// provider token, kept while its pools idle (a new token per reopened pool would trip
    /// APNs' `TooManyProviderTokenUpdates`); a certificate's TLS context presenting it. Dropped
    /// when the credential is retired.
    private let authentications = Mutex<[APNSCredential: APNSPoolAuthentication]>([:])
    /// Turns for single pushes over a key's loops.
    let nextTurn = Atomic(0)

    /// Checks the endpoint URLs and loads the trust store (and `caFile`) when an endpoint uses TLS.
    package init(configuration: APNSClientConfiguration = APNSClientConfiguration(), logger: Logger = .discarding()) throws {
        self.configuration = configuration
        var endpoints: [APNSRoute: APNSEndpoint] = [:]
        for environment in APNSEnvironment.allCases {
            for service in APNSService.allCases {
                let route = APNSRoute(environment: environment, service: service)
                endpoints[route] = try APNSEndpoint(url: configuration.url(for: route))
            }
        }
        self.endpoints = endpoints
        let tlsContext = endpoints.values.contains { $0.usesTLS }
            ? try TLSClientContext(caFile: configuration.caFile, alpn: ["h2"])
            : nil
        loops = (0..<max(1, configuration.eventLoops)).map { [counters] _ in
            APNSEventLoop(
                endpoints: endpoints, tlsContext: tlsContext, configuration: configuration, counters: counters, logger: logger)
        }
    }

    /// Sends one push and waits for APNs' answer. `sender`: whose queue it waits in for a
    /// stream (`APNSSender`); nil: its topic's, not urgent.
    package func send(
        _ push: APNSPush, credential: APNSCredential, environment: APNSEnvironment, sender: APNSSender? = nil
    ) async throws(APNSTransportError) -> APNSResponse {
        let result = await withCheckedContinuation { continuation in
            submit([push], credential: credential, environment: environment, sender: sender) { _, result in
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// Sends many pushes at once, spread over the pool's connections within each one's stream
    /// limit, and returns their outcomes in order. Cheaper than a task per push. `sender`: whose
    /// queue they wait in for streams (`APNSSender`); nil: each push's topic's, not urgent.
    package func send(
        _ pushes: [APNSPush], credential: APNSCredential, environment: APNSEnvironment, sender: APNSSender? = nil
    ) async -> [Result<APNSResponse, APNSTransportError>] {
        guard !pushes.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let collector = APNSBatchCollector(count: pushes.count) { continuation.resume(returning: $0) }
            submit(pushes, credential: credential, environment: environment, sender: sender) { index, result in
                collector.record(result, at: index)
            }
        }
    }

    package var metrics: APNSClientMetrics {
        APNSClientMetrics(
            openConnections: counters.openConnections.load(ordering: .relaxed),
            inFlightStreams: counters.inFlightStreams.load(ordering: .relaxed),
            queuedRequests: counters.queuedRequests.load(ordering: .relaxed),
            openPools: counters.openPools.load(ordering: .relaxed))
    }

    /// Connections opened since the client started, reconnects included.
    package var connectionsOpened: Int { counters.connectionsOpened.load(ordering: .relaxed) }

    /// Closes the connections of a credential that is no longer used (e.g. an app's key was
    /// replaced) and forgets its provider token. Its pushes still waiting or in flight fail
    /// with a transport error (`shutdown`); a later send with it starts afresh.
    package func retire(credential: APNSCredential) async {
        _ = authentications.withLock { $0.removeValue(forKey: credential) }
        for loop in loops {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                loop.retire(credential) { continuation.resume() }
            }
        }
    }

    /// Fails everything queued or in flight with `shutdown`, closes every connection and
    /// waits for the loops' threads to end. Sends after this fail at once.
    package func shutdown() async {
        for loop in loops {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                loop.stop { continuation.resume() }
            }
        }
    }

    private func submit(
        _ pushes: [APNSPush], credential: APNSCredential, environment: APNSEnvironment, sender: APNSSender?,
        completion: @escaping @Sendable (Int, Result<APNSResponse, APNSTransportError>) -> Void
    ) {
        let endpoint = endpoints[APNSRoute(environment: environment, service: .push)]!
        let deadline = MonotonicClock.now() + configuration.requestTimeout
        var items: [APNSPendingRequest] = []
        items.reserveCapacity(pushes.count)
        for (index, push) in pushes.enumerated() {
            if let field = APNSPendingRequest.unsendableField(of: push) {
                // This push alone fails; the others of the batch go on as usual.
                completion(index, .failure(APNSPendingRequest.unsendable(field)))
                continue
            }
            items.append(APNSPendingRequest(
                headers: APNSPendingRequest.headers(for: push, endpoint: endpoint), payload: push.request.payloadBytes,
                sender: sender ?? APNSSender(tenant: push.request.headers.topic), deadline: deadline,
                completion: { completion(index, $0) }))
        }
        dispatch(items, to: APNSPoolKey(credential: credential, environment: environment))
    }

    /// Hands requests to the loops holding `key`'s connections: a single one to the next loop
    /// in turn, a batch split over them by their share of the connections.
    func dispatch(_ items: [APNSPendingRequest], to key: APNSPoolKey) {
        guard !items.isEmpty else { return }
        let shards: [(loop: APNSEventLoop, shape: APNSPoolShape)]
        do {
            shards = try self.shards(of: key)
        } catch {
            for item in items { item.complete(.failure(error)) }
            return
        }
        if items.count == 1 {
            let turn = UInt(bitPattern: nextTurn.add(1, ordering: .relaxed).newValue)
            let (loop, shape) = shards[Int(turn % UInt(shards.count))]
            return loop.submit(items, to: key, shape: shape)
        }
        // A batch in contiguous parts, one per loop, sized by each one's connections.
        let total = shards.reduce(0) { $0 + $1.shape.connections }
        var start = 0
        for (position, (loop, shape)) in shards.enumerated() {
            let end = position == shards.count - 1 ? items.count : start + items.count * shape.connections / total
            if end > start { loop.submit(Array(items[start..<end]), to: key, shape: shape) }
            start = end
        }
    }

    /// The loops that hold `key`'s connections, and how many each holds: the key's
    /// connections dealt over the loops from one chosen by the key's hash. Throws for a
    /// certificate that cannot be used (no TLS to present it on, or OpenSSL refuses it).
    func shards(of key: APNSPoolKey) throws(APNSTransportError) -> [(loop: APNSEventLoop, shape: APNSPoolShape)] {
        let authentication = try authentication(for: key)
        let connections = max(1, configuration.connectionsPerKey)
        let count = min(loops.count, connections)
        let first = Int(UInt(bitPattern: key.hashValue) % UInt(loops.count))
        return (0..<count).map { shard in
            let share = connections / count + (shard < connections % count ? 1 : 0)
            return (loops[(first + shard) % loops.count], APNSPoolShape(authentication: authentication, connections: share))
        }
    }

    /// The credential's signer or certificate context, made on first use. The token and the
    /// context are per credential, whichever environment they are used with.
    private func authentication(for key: APNSPoolKey) throws(APNSTransportError) -> APNSPoolAuthentication {
        guard let credential = key.credential else { return .carriedByRequests }
        if case .certificate = credential, !endpoints[key.route]!.usesTLS {
            throw APNSTransportError(.requestFailed, Self.certificateNeedsTLS(endpoints[key.route]!))
        }
        let made: Result<APNSPoolAuthentication, APNSTransportError> = authentications.withLock { known in
            if let found = known[credential] { return .success(found) }
            let authentication: APNSPoolAuthentication
            switch credential {
            case .token(let providerKey):
                authentication = .token(APNSJWTSigner(credential: providerKey))
            case .certificate(let certificate):
                do throws(CryptoError) {
                    authentication = .certificate(try TLSClientContext(
                        caFile: configuration.caFile, alpn: ["h2"], identity: certificate.identity))
                } catch {
                    return .failure(APNSTransportError(.requestFailed, "the APNs client certificate: \(error.message)"))
                }
            }
            known[credential] = authentication
            return .success(authentication)
        }
        return try made.get()
    }

    static func certificateNeedsTLS(_ endpoint: APNSEndpoint) -> String {
        "a certificate credential needs an https:// APNs endpoint to present its certificate on; "
            + "\(endpoint.scheme)://\(endpoint.authority) is cleartext (h2c)"
    }
}
