import EventLoop
import OpenPushCore

/// Queued requests onto free streams, and nghttp2's output onto the socket.
extension APNSConnection {
    /// Takes as many queued requests as the server allows and submits them.
    func openStreams() {
        guard let session else { return }
        let available = machine.availableStreams
        guard available > 0, !shared.queue.isEmpty else { return }
        let items = shared.queue.take(max: available)
        // A certificate's connection needs no provider token: no header at all.
        var token: APNSProviderToken?
        if let signer = shared.signer {
            do {
                token = try signer.token(now: shared.configuration.clock())
            } catch {
                for item in items { item.complete(.failure(APNSTransportError(.requestFailed, "JWT: \(error.message)"))) }
                return
            }
        }
        let authorization = token.map { "bearer " + $0.jwt }
        let answerBy = MonotonicClock.now() + shared.configuration.requestTimeout
        for position in items.indices {
            let item = items[position]
            if let authorization { item.authorize(authorization) } else { item.authorizeByCertificate() }
            item.answerBy = answerBy
            do {
                let streamID = try session.submitRequest(headers: item.headers, body: item.payload,
                                                         unindexed: APNSPendingRequest.unindexedHeaders)
                item.sentJWT = token?.jwt ?? ""
                inFlight[streamID] = item
                machine.streamOpened(streamID)
                shared.counters.inFlightStreams.add(1, ordering: .relaxed)
            } catch {
                // Stream ids used up, or the session broke: this connection is done.
                shared.queue.requeue(Array(items[position...]))
                return connectionLost("submit: \(error)")
            }
        }
    }

    func flush() {
        guard let socket, let session else { return }
        do {
            let produced = try session.pendingOutput()
            if !produced.isEmpty {
                if outputOffset == output.count {
                    output = produced
                    outputOffset = 0
                } else {
                    output.append(contentsOf: produced)
                }
            }
        } catch {
            return connectionLost("HTTP/2: \(error)")
        }
        writeWantsWritable = false
        while outputOffset < output.count {
            let offset = outputOffset
            let attempt = output.withUnsafeBytes { bytes in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            }
            let result: NonBlockingSocket.IOResult
            switch attempt {
            case .success(let value): result = value
            case .failure(let error): return failed(error)
            }
            switch result {
            case .transferred(let count):
                outputOffset += count
                if case .handshaking = phase, socket.isHandshaken { established() }
            case .wouldBlock(let wantsWrite):
                writeWantsWritable = wantsWrite
                return
            case .closed:
                return failed(SocketError(.connectionLost, "closed by the server"))
            }
        }
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
    }
}
