import Crypto
import OpenPushCore

/// The connections of one (credential, environment): a shared queue of requests and a few
/// connection threads that take from it.
final class APNSConnectionPool: Sendable {
    let endpoint: APNSEndpoint
    let queue: APNSRequestQueue
    private let connections: [APNSConnection]
    private let requestTimeout: Double

    init(
        endpoint: APNSEndpoint, tlsContext: TLSClientContext?, signer: APNSJWTSigner,
        configuration: APNSClientConfiguration, counters: APNSClientCounters, logger: Logger
    ) {
        self.endpoint = endpoint
        requestTimeout = configuration.requestTimeout
        let count = max(1, configuration.connectionsPerKey)
        queue = APNSRequestQueue(connections: count)
        let shared = APNSConnection.Shared(
            endpoint: endpoint, tlsContext: tlsContext, signer: signer, queue: queue, counters: counters,
            configuration: configuration, logger: logger)
        connections = (0..<count).map { APNSConnection(index: $0, shared: shared) }
        for connection in connections { connection.start() }
    }

    func submit(
        _ requests: [APNSPushRequest],
        completion: @escaping @Sendable (Int, Result<APNSResponse, APNSTransportError>) -> Void
    ) {
        let deadline = APNSMonotonicClock.now() + requestTimeout
        let items = requests.enumerated().map { index, request in
            APNSPendingRequest(
                headers: APNSPendingRequest.headers(for: request, endpoint: endpoint), payload: request.payload,
                deadline: deadline, completion: { completion(index, $0) })
        }
        queue.enqueue(items)
    }

    /// Fails what waits, closes the connections, and blocks until their threads have ended:
    /// call it from a thread of one's own, not the cooperative pool.
    func shutdownAndWait() {
        queue.shutdown()
        for connection in connections { connection.stop() }
        for connection in connections { connection.waitUntilFinished() }
    }
}
