import EventLoop
import HTTP2
import OpenPushCore

/// Bytes from the socket through nghttp2 into the state machine and each request's outcome.
extension APNSConnection {
    func readAvailable() {
        // Bounded, so a flood of responses on one connection cannot starve the others; the
        // loop comes back at once for the rest (TLS may hold it where epoll cannot see it).
        for _ in 0..<16 {
            guard let socket, let session else { return }
            // withUnsafeMutableBytes only rethrows untyped errors: carry the typed one out as a Result.
            let attempt = context.readBuffer.withUnsafeMutableBytes { buffer in
                Result { () throws(SocketError) in try socket.read(into: buffer) }
            }
            let result: NonBlockingSocket.IOResult
            switch attempt {
            case .success(let value): result = value
            case .failure(let error): return failed(error)
            }
            switch result {
            case .transferred(let count):
                readWantsWritable = false
                let now = MonotonicClock.now()
                machine.bytesReceived(now: now)
                let events: [HTTP2Event]
                do {
                    events = try session.receive(Array(context.readBuffer[0..<count]))
                } catch {
                    return connectionLost("HTTP/2: \(error)")
                }
                for event in events { handle(event, now: now) }
                if self.socket == nil { return }
            case .wouldBlock(let wantsWrite):
                readWantsWritable = wantsWrite
                return
            case .closed:
                return connectionLost("closed by the server")
            }
        }
        context.unfinishedReads.append(self)
    }

    func handle(_ event: HTTP2Event, now: Double) {
        switch event {
        case .settingsChanged(let limit):
            machine.settingsReceived(maxConcurrentStreams: limit, now: now)
        case .response(let streamID, let status, let headers, let body):
            let action = machine.responseReceived(streamID, now: now)
            if let item = inFlight.removeValue(forKey: streamID) {
                shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
                finish(item, response: HTTP2WireResponse(status: status, headers: headers, body: body), now: now)
            }
            perform(action, lost: false)
        case .streamReset(let streamID, let errorCode):
            // REFUSED_STREAM means the server did not process it: free to retry.
            let refused = errorCode == 0x7
            perform(machine.streamReset(streamID, now: now, jitter: nextJitter()), lost: !refused)
        case .goAway(let lastStreamID, let errorCode):
            shared.logger.debug(
                "APNs GOAWAY", ["apns.last_stream_id": String(lastStreamID), "apns.error_code": String(errorCode)])
            perform(machine.goAwayReceived(lastStreamID: lastStreamID, now: now, jitter: nextJitter()), lost: false)
        case .pingAck:
            break
        }
    }

    /// A response is the request's outcome, except one `ExpiredProviderToken`, after which
    /// the request goes out again with a fresh token if the refresh floor allows one.
    func finish(_ item: APNSPendingRequest, response: HTTP2WireResponse, now: Double) {
        pool.lastActivity = now
        // Read here only when it may be that one answer; the request's completion reads the rest.
        if response.status == 403, shared.signer != nil, Self.response(response).reason == .expiredProviderToken, !item.refreshedToken,
           let fresh = try? shared.signer?.refresh(rejected: item.sentJWT, now: shared.configuration.clock()),
           fresh.jwt != item.sentJWT {
            item.refreshedToken = true
            shared.queue.requeue([item])
            return
        }
        item.complete(.success(response))
    }

    static func response(status: Int, headers: [HTTP2Header], body: [UInt8]) -> APNSResponse {
        response(HTTP2WireResponse(status: status, headers: headers, body: body))
    }

    static func response(_ wire: HTTP2WireResponse) -> APNSResponse {
        var response = APNSResponse(status: wire.status)
        let body = wire.body
        for header in wire.headers {
            switch header.name {
            case "apns-id": response.apnsID = header.value
            case "apns-unique-id": response.apnsUniqueID = header.value
            case "apns-request-id": response.requestID = header.value
            case "apns-channel-id": response.channelID = header.value
            default: break
            }
        }
        if !body.isEmpty, let object = (try? JSONValue.parse(body))?.objectValue {
            response.reason = object["reason"]?.stringValue.map(APNSReason.init(rawValue:))
            response.timestamp = object["timestamp"]?.intValue
            if response.reason == nil { response.body = object }
        }
        return response
    }
}
