import EventLoop
import HTTP2
import OpenPushCore

/// Resolving, connecting, the TLS handshake, and closing: the socket's life below the state machine.
extension APNSConnection {
    func connect() {
        shared.queue.setStatus(.connecting, of: index)
        resolveAndConnect(deadline: MonotonicClock.now() + shared.configuration.connectTimeout)
    }

    func resolveAndConnect(deadline: Double) {
        let endpoint = shared.endpoint
        switch context.resolver.addresses(host: endpoint.host, port: endpoint.port, now: MonotonicClock.now()) {
        case .ready(let addresses):
            do throws(APNSTransportError) {
                try connectNext(addresses[...], deadline: deadline)
            } catch {
                connectFailed(error)
            }
        case .pending:
            phase = .resolving(deadline: deadline)
        case .failed(let error):
            connectFailed(APNSTransportError(error))
        }
    }

    /// Starts connecting to the first address that takes a connect; throws when none does.
    func connectNext(_ addresses: ArraySlice<AddressResolver.Address>, deadline: Double) throws(APNSTransportError) {
        var remaining = addresses
        var lastError = "no address"
        while let address = remaining.popFirst() {
            do throws(SocketError) {
                let (opened, connected) = try NonBlockingSocket.connect(to: address)
                socket = opened
                interest = [.writable]
                token = context.register(self, descriptor: opened.descriptor, interest: interest)
                phase = .connecting(remaining: remaining, deadline: deadline)
                if connected { tcpConnected() }
                return
            } catch {
                lastError = error.message
            }
        }
        throw APNSTransportError(.connectFailed, "cannot connect to \(shared.endpoint.authority): \(lastError)")
    }

    func tcpConnected() {
        guard case .connecting(let remaining, let deadline) = phase, let socket else { return }
        do throws(APNSTransportError) {
            do throws(SocketError) {
                try socket.finishConnect()
            } catch {
                dropSocket()
                guard !remaining.isEmpty else {
                    throw APNSTransportError(.connectFailed, "cannot connect to \(shared.endpoint.authority): \(error.message)")
                }
                return try connectNext(remaining, deadline: deadline)
            }
            guard let http2 = try? HTTP2ClientSession() else {
                throw APNSTransportError(.connectFailed, "cannot create an HTTP/2 session")
            }
            session = http2
            output = []
            outputOffset = 0
            readWantsWritable = false
            writeWantsWritable = false
            if shared.endpoint.usesTLS {
                guard let tlsContext = shared.tlsContext else {
                    throw APNSTransportError(.connectFailed, "no TLS context for \(shared.endpoint.authority)")
                }
                do throws(SocketError) {
                    try socket.startTLS(context: tlsContext, hostname: shared.endpoint.host, authority: shared.endpoint.authority)
                } catch {
                    throw APNSTransportError(error)
                }
                phase = .handshaking(deadline: MonotonicClock.now() + shared.configuration.connectTimeout)
            } else {
                established()
            }
            flush()
            updateInterest()
        } catch {
            connectFailed(error)
        }
    }

    /// TCP (and TLS) are up and the client preface is (or goes) out; SETTINGS are awaited.
    func established() {
        phase = .open
        machine.connectSucceeded(now: MonotonicClock.now())
        shared.queue.setStatus(.up, of: index)
        isCounted = true
        shared.counters.openConnections.add(1, ordering: .relaxed)
        shared.counters.connectionsOpened.add(1, ordering: .relaxed)
        shared.logger.debug("APNs connection open", ["apns.endpoint": shared.endpoint.authority])
    }

    func connectFailed(_ error: APNSTransportError) {
        shared.logger.warning("APNs connect failed: \(error.message)", ["apns.endpoint": shared.endpoint.authority])
        dropSocket()
        session = nil
        phase = .idle
        context.resolver.forget(host: shared.endpoint.host, port: shared.endpoint.port)
        machine.connectFailed(now: MonotonicClock.now(), jitter: nextJitter())
        shared.queue.connectFailed(index: index, error: error)
    }

    /// A failure of the socket: before the handshake is done a connect failure, after it a
    /// lost connection.
    func failed(_ error: SocketError) {
        if case .open = phase {
            connectionLost(error.message)
        } else {
            connectFailed(APNSTransportError(.connectFailed, error.message))
        }
    }

    /// Closes the socket without touching streams or counters (nothing is open on it yet).
    func dropSocket() {
        guard let socket else { return }
        context.unregister(token: token, descriptor: socket.descriptor)
        socket.close()
        self.socket = nil
        interest = []
    }

    func closeSocket() {
        guard socket != nil else { return }
        dropSocket()
        session = nil
        phase = .idle
        output = []
        outputOffset = 0
        // Whatever the machine no longer tracks but still waits (none, normally) goes back too.
        giveBack(Array(inFlight.keys), lost: true)
        shared.queue.setStatus(.down, of: index)
        if isCounted {
            isCounted = false
            shared.counters.openConnections.subtract(1, ordering: .relaxed)
        }
    }

    func connectionLost(_ reason: String) {
        shared.logger.debug("APNs connection lost: \(reason)", ["apns.endpoint": shared.endpoint.authority])
        // Closed before the server's SETTINGS: it never took a request (a server refusing the
        // client certificate after TLS 1.3's handshake closes here). That is a failed connect,
        // so the queue is failed now when no other connection serves it, not held until the
        // requests time out while every new connection is refused the same way.
        let neverReady = machine.state == .connecting
        perform(machine.connectionLost(now: MonotonicClock.now(), jitter: nextJitter()), lost: true)
        closeSocket()
        if neverReady {
            shared.queue.connectFailed(index: index, error: APNSTransportError(
                .connectFailed, "connection to \(shared.endpoint.authority) closed before it was ready: \(reason)"))
        }
    }

    func updateInterest() {
        guard let socket else { return }
        let wanted: Epoll.Interest
        switch phase {
        case .idle, .resolving: return
        case .connecting: wanted = [.writable]
        case .handshaking: wanted = writeWantsWritable ? [.writable] : [.readable]
        case .open:
            // Not for output alone: a TLS write may wait for readability, and asking for
            // writability then would wake the loop for nothing until data comes.
            wanted = writeWantsWritable || readWantsWritable ? [.readable, .writable] : [.readable]
        }
        guard wanted != interest else { return }
        interest = wanted
        context.epoll.modify(socket.descriptor, token: token, interest: wanted)
    }

    /// Puts the requests of these streams back on the queue (or fails them when they have
    /// used up their retries or their time).
    func giveBack(_ streamIDs: [Int32], lost: Bool) {
        var returned: [APNSPendingRequest] = []
        let now = MonotonicClock.now()
        for streamID in streamIDs {
            guard let item = inFlight.removeValue(forKey: streamID) else { continue }
            shared.counters.inFlightStreams.subtract(1, ordering: .relaxed)
            if lost { item.transportFailures += 1 }
            if item.transportFailures > shared.configuration.maxTransportRetries {
                item.complete(.failure(APNSTransportError(
                    .connectionLost, "the stream ended without a response \(item.transportFailures) times")))
            } else if item.deadline <= now {
                item.complete(.failure(APNSTransportError(.timeout, "no response before the request timeout")))
            } else {
                returned.append(item)
            }
        }
        shared.queue.requeue(returned)
    }
}
