package import OpenPushCore
import EventLoop
import Synchronization

/// Channel management ("Sending channel management requests to APNs") on the management hosts,
/// and broadcasts on the push hosts, over the same pools, HTTP/2 stack and provider token as
/// device pushes. A rejection is a response; only a request without an answer throws.
extension APNSClient {
    /// `POST /1/apps/<bundleID>/channels` `{"message-storage-policy": N, "push-type": "LiveActivity"}`:
    /// `201` with the new channel's id in `channelID`.
    package func createChannel(
        bundleID: String, storagePolicy: ChannelStoragePolicy, requestID: String,
        credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        let body: JSONValue = ["message-storage-policy": .int(Int64(storagePolicy.rawValue)), "push-type": "LiveActivity"]
        return try await request(
            method: "POST", path: "/1/apps/\(bundleID)/channels", fields: [("apns-request-id", requestID)],
            body: body.serializedBytes, service: .channels, credential: credential, environment: environment)
    }

    /// `GET /1/apps/<bundleID>/channels` with `apns-channel-id`: `200` with the channel's
    /// `{"message-storage-policy", "push-type"}` in `body`.
    package func readChannel(
        bundleID: String, channelID: String, requestID: String, credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        try await request(
            method: "GET", path: "/1/apps/\(bundleID)/channels",
            fields: [("apns-channel-id", channelID), ("apns-request-id", requestID)], body: [], service: .channels,
            credential: credential, environment: environment)
    }

    /// `DELETE /1/apps/<bundleID>/channels` with `apns-channel-id`: `204`.
    package func deleteChannel(
        bundleID: String, channelID: String, requestID: String, credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        try await request(
            method: "DELETE", path: "/1/apps/\(bundleID)/channels",
            fields: [("apns-channel-id", channelID), ("apns-request-id", requestID)], body: [], service: .channels,
            credential: credential, environment: environment)
    }

    /// `GET /1/apps/<bundleID>/all-channels`: `200` with `{"channels": [id, …]}` in `body`.
    package func listChannels(
        bundleID: String, requestID: String, credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        try await request(
            method: "GET", path: "/1/apps/\(bundleID)/all-channels", fields: [("apns-request-id", requestID)], body: [],
            service: .channels, credential: credential, environment: environment)
    }

    /// One broadcast: `POST /4/broadcasts/apps/<bundleID>` on the push hosts; `200` when APNs took it.
    package func broadcast(
        _ broadcast: APNSBroadcastRequest, credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        try await request(
            method: "POST", path: broadcast.path, fields: broadcast.fields, body: broadcast.payloadBytes, service: .push,
            credential: credential, environment: environment)
    }

    private func request(
        method: String, path: String, fields: [(name: String, value: String)], body: [UInt8], service: APNSService,
        credential: APNSCredential, environment: APNSEnvironment
    ) async throws(APNSTransportError) -> APNSResponse {
        let endpoint = endpoints[APNSRoute(environment: environment, service: service)]!
        var headers: [(name: String, value: String)] = [
            (":method", method), (":scheme", endpoint.scheme), (":authority", endpoint.authority), (":path", path),
        ]
        headers += fields
        if !body.isEmpty {
            headers.append(("content-type", "application/json"))
            headers.append(("content-length", String(body.count)))
        }
        if let field = APNSPendingRequest.unsendableField(in: headers) { throw APNSPendingRequest.unsendable(field) }
        let deadline = MonotonicClock.now() + configuration.requestTimeout
        let key = APNSPoolKey(credential: credential, environment: environment, service: service)
        let result = await withCheckedContinuation { continuation in
            // Its own turn among the pool's senders: a broadcast does not queue behind device pushes.
            let item = APNSPendingRequest(headers: headers, payload: body, sender: APNSSender(tenant: path), deadline: deadline) {
                continuation.resume(returning: $0)
            }
            let shards: [(loop: APNSEventLoop, shape: APNSPoolShape)]
            do throws(APNSTransportError) {
                shards = try self.shards(of: key)
            } catch {
                return item.complete(.failure(error))
            }
            let turn = UInt(bitPattern: nextTurn.add(1, ordering: .relaxed).newValue)
            let (loop, shape) = shards[Int(turn % UInt(shards.count))]
            loop.submit([item], to: key, shape: shape)
        }
        return try result.get()
    }
}
