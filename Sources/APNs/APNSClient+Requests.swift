import EventLoop
package import OpenPushCore

/// Requests that carry their own `authorization`, over the same loops, pools and connections
/// as APNs pushes: how another HTTP/2 push service (FCM HTTP v1) is sent to, by a client made
/// with that service's URL as its production endpoint. They share one pool, whatever their
/// authorization, and wait for streams in their sender's turn like pushes do.
extension APNSClient {
    /// POSTs each body to `path` on the production endpoint with `fields` after the
    /// pseudo-headers (one header block for them all), queued as `sender`'s, and returns the
    /// answers in order, as they came. Only a request without an answer is a failure.
    package func post(
        _ bodies: [[UInt8]], path: String, fields: [(name: String, value: String)], sender: APNSSender
    ) async -> [Result<HTTP2WireResponse, APNSTransportError>] {
        guard !bodies.isEmpty else { return [] }
        let endpoint = endpoints[APNSRoute(environment: .production, service: .push)]!
        let headers = [(":method", "POST"), (":scheme", endpoint.scheme), (":authority", endpoint.authority), (":path", path)]
            + fields
        if let field = APNSPendingRequest.unsendableField(in: headers) {
            return Array(repeating: .failure(APNSPendingRequest.unsendable(field)), count: bodies.count)
        }
        let deadline = MonotonicClock.now() + configuration.requestTimeout
        return await withCheckedContinuation { continuation in
            let collector = APNSBatchCollector<HTTP2WireResponse>(count: bodies.count) { continuation.resume(returning: $0) }
            var items: [APNSPendingRequest] = []
            items.reserveCapacity(bodies.count)
            for (index, body) in bodies.enumerated() {
                items.append(APNSPendingRequest(
                    wireHeaders: headers, payload: body, sender: sender, deadline: deadline, authorizationSlot: false
                ) { collector.record($0, at: index) })
            }
            dispatch(items, to: APNSPoolKey(credential: nil, environment: .production))
        }
    }
}
