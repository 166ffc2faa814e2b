import Crypto
import Foundation
import HTTP2
import OpenPushCore

#if canImport(Glibc)
import Glibc
#endif

/// One client connection of the simulator, run on its own thread: a poll loop over a
/// non-blocking socket (TLS or cleartext) that feeds an `HTTP2ServerSession`, answers each
/// complete request, and holds back delayed ("slow") answers until they are due.
final class APNSSimulatorConnection {
    /// An answer waiting for its time.
    private struct Delayed {
        var due: ContinuousClock.Instant
        var streamID: Int32
        var answer: Answer
    }

    private struct Answer {
        var status: Int
        var headers: [HTTP2Header]
        var body: [UInt8]
        /// Recorded once sent, for a 200.
        var push: APNSSimulator.RecordedPush?
        /// Held back by the rate cap: recorded as received when answered, which is when a
        /// congested APNs would have taken it.
        var stampsWhenSent = false
    }

    private let simulator: APNSSimulator
    private let socket: Int32
    /// The simulator's number for this connection, recorded with its pushes.
    private let id: Int
    /// The verified client certificate it presented (TLS with a client CA only).
    private var certificate: APNSSimulatorClientCertificate?
    /// The last `authorization` seen and who it names, so recording a push parses no JWT.
    private var lastAuthorization: (value: String, authentication: APNSSimulator.Authentication)?
    private var tls: TLSServerConnection?
    private var session: HTTP2ServerSession?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var delayed: [Delayed] = []
    private var completedStreams = 0
    /// Set once GOAWAY is queued: streams above it are refused and never answered.
    private var goAwayStreamID: Int32?
    private var verifiedTokens: [String: APNSSimulatorProviderToken] = [:]
    private var streamsRampedUp: Bool

    /// Above this much unsent output, stop reading requests until the client reads.
    private static let outputHighWater = 1 << 20

    init(simulator: APNSSimulator, socket: Int32, id: Int) {
        self.simulator = simulator
        self.socket = socket
        self.id = id
        streamsRampedUp = !simulator.configuration.rampsUpStreams
    }

    /// Serves until the client goes, the session ends, or the simulator stops. The caller
    /// closes the socket.
    func run() {
        do {
            try setUp()
            try serve()
        } catch {
            // A broken connection only ends itself; the client sees the socket close.
        }
        tls?.shutdown()
    }

    private func setUp() throws {
        if let context = simulator.tlsContext {
            // The handshake runs blocking, bounded so a silent client cannot hold the thread.
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connection = try TLSServerConnection(context: context, socket: socket)
            try connection.handshake()
            tls = connection
            if simulator.configuration.clientCAPath != nil, let der = connection.verifiedPeerCertificateDER {
                certificate = APNSSimulatorClientCertificate(der: der)
            }
        }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let configuration = simulator.configuration
        session = try HTTP2ServerSession(settings: [
            .maxConcurrentStreams(streamsRampedUp ? configuration.maxConcurrentStreams : 1),
            .initialWindowSize(1 << 20),
        ])
    }

    private func serve() throws {
        guard let session else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            try answerDue()
            output += try session.pendingOutput()
            try flush()
            if !session.wantsRead && !session.wantsWrite && outputOffset == output.count { return }
            if simulator.isStopping { return }

            var readable = tls?.hasBufferedInput ?? false
            if !readable {
                var events = Int16(0)
                if output.count - outputOffset < Self.outputHighWater { events |= Int16(POLLIN) }
                if outputOffset < output.count { events |= Int16(POLLOUT) }
                var descriptor = pollfd(fd: socket, events: events, revents: 0)
                let ready = poll(&descriptor, 1, pollTimeout())
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if descriptor.revents & Int16(POLLERR | POLLNVAL) != 0 { return }
                readable = descriptor.revents & Int16(POLLIN | POLLHUP) != 0
            }
            guard readable else { continue }
            // Read until the socket is drained, but give writes a turn every 256 KiB.
            var total = 0
            while total < 1 << 18 {
                guard let count = try read(into: &buffer) else { break }
                if count == 0 { return }  // the client closed
                total += count
                for request in try session.receive(Array(buffer[0..<count])) {
                    try handle(request, in: session)
                }
            }
        }
    }

    // MARK: Requests

    private func handle(_ request: HTTP2ServerSession.Request, in session: HTTP2ServerSession) throws {
        if let goAwayStreamID, request.streamID > goAwayStreamID { return }
        let now = simulator.configuration.now()
        // A refused certificate is refused whatever the request.
        if let certificate, let refusal = simulator.certificateBehaviour(forUID: certificate.uid), refusal.status != 200 {
            let apnsID = request.value("apns-id").flatMap { APNSSimulatorRequestCheck.isUUID($0) ? $0 : nil }
                ?? Self.makeAPNSID()
            let uniqueID = simulator.configuration.sandbox ? Self.makeAPNSID() : nil
            try send(Self.answer(refusal, apnsID: apnsID, uniqueID: uniqueID, push: nil, now: now),
                     streamID: request.streamID, in: session)
            completedStreams += 1
            return
        }
        if let channelAnswer = simulator.channelAnswer(request, now: now, verifiedTokens: &verifiedTokens,
                                                       certificate: certificate) {
            let answer = Answer(status: channelAnswer.status, headers: channelAnswer.headers, body: channelAnswer.body,
                                push: channelAnswer.broadcast)
            try send(answer, streamID: request.streamID, in: session)
            completedStreams += 1
            return
        }
        let verdict = simulator.requestCheck.check(request, now: now, verifiedTokens: &verifiedTokens,
                                                   certificate: certificate)
        let apnsID = request.value("apns-id").flatMap { APNSSimulatorRequestCheck.isUUID($0) ? $0 : nil }
            ?? Self.makeAPNSID()

        // Like APNs' sandbox: every answer there carries its own `apns-unique-id`.
        let uniqueID = simulator.configuration.sandbox ? Self.makeAPNSID() : nil
        var behaviour: APNSSimulator.Behaviour
        var push: APNSSimulator.RecordedPush?
        switch verdict {
        case .rejected(let status, let reason):
            behaviour = APNSSimulator.Behaviour(status: status, reason: reason)
        case .accepted(let deviceToken):
            behaviour = simulator.behaviour(forToken: deviceToken) ?? .accept
            if behaviour.status == 200 {
                push = APNSSimulator.RecordedPush(
                    deviceToken: deviceToken, apnsID: apnsID,
                    headers: request.headers.filter { !$0.name.hasPrefix(":") },
                    payload: request.body, receivedAt: now, uniqueID: uniqueID,
                    authentication: authentication(of: request), connectionID: id)
            }
        }
        // Like APNs: more streams once a request got past the provider-token check.
        if !streamsRampedUp, behaviour.status != 403 {
            streamsRampedUp = true
            try session.submitSettings([.maxConcurrentStreams(simulator.configuration.maxConcurrentStreams)])
        }

        var answer = Self.answer(behaviour, apnsID: apnsID, uniqueID: uniqueID, push: push, now: now)
        var delay = behaviour.delay
        if let wait = simulator.rateDelay(), wait > .zero {
            delay = max(delay, wait)
            answer.stampsWhenSent = true
        }
        if delay > .zero {
            delayed.append(Delayed(due: .now + delay, streamID: request.streamID, answer: answer))
        } else {
            try send(answer, streamID: request.streamID, in: session)
        }

        completedStreams += 1
        if goAwayStreamID == nil, let limit = simulator.goAwayAfterStreams, completedStreams >= limit {
            goAwayStreamID = request.streamID
            try session.submitGoAway(lastStreamID: request.streamID)
        }
    }

    /// How `request` was authenticated: the connection's certificate, else the provider token
    /// it carries (read, not verified: the check did that unless `acceptAnyToken`).
    private func authentication(of request: HTTP2ServerSession.Request) -> APNSSimulator.Authentication {
        if let certificate { return .certificate(uid: certificate.uid) }
        guard let value = request.value("authorization") else { return .none }
        if let last = lastAuthorization, last.value == value { return last.authentication }
        let authentication = APNSSimulatorProviderToken(authorization: value)
            .map { APNSSimulator.Authentication.providerToken(keyID: $0.keyID, teamID: $0.teamID) } ?? .none
        lastAuthorization = (value, authentication)
        return authentication
    }

    /// A random (version 4) UUID in lower case, as APNs makes them. RAND_bytes, because
    /// Foundation's UUID() opens /dev/urandom on every call here, which showed in profiles.
    static func makeAPNSID() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.hexString
        let utf8 = Array(hex.utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, digit) in utf8.enumerated() {
            if [8, 12, 16, 20].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func answer(
        _ behaviour: APNSSimulator.Behaviour, apnsID: String, uniqueID: String?, push: APNSSimulator.RecordedPush?, now: Date
    ) -> Answer {
        var headers = [HTTP2Header(name: "apns-id", value: apnsID)]
        if let uniqueID { headers.append(HTTP2Header(name: "apns-unique-id", value: uniqueID)) }
        guard behaviour.status != 200 else { return Answer(status: 200, headers: headers, body: [], push: push) }
        var body: JSONObject = ["reason": .string(behaviour.reason ?? "")]
        if behaviour.status == 410 {
            // Milliseconds since the epoch: when APNs learned the token was no longer valid.
            let age = Double(behaviour.invalidFor.components.seconds) + Double(behaviour.invalidFor.components.attoseconds) / 1e18
            body["timestamp"] = .int(Int64(((now.timeIntervalSince1970 - age) * 1000).rounded()))
        }
        headers.append(HTTP2Header(name: "content-type", value: "application/json"))
        return Answer(status: behaviour.status, headers: headers, body: JSONValue.object(body).serializedBytes, push: nil)
    }

    private func send(_ answer: Answer, streamID: Int32, in session: HTTP2ServerSession) throws {
        let sent = try session.respond(streamID: streamID, status: answer.status, headers: answer.headers, body: answer.body)
        guard sent, var push = answer.push else { return }
        if answer.stampsWhenSent { push.receivedAt = simulator.configuration.now() }
        simulator.record(push)
    }

    private func answerDue() throws {
        guard !delayed.isEmpty, let session else { return }
        let now = ContinuousClock.now
        let due = delayed.filter { $0.due <= now }
        guard !due.isEmpty else { return }
        delayed.removeAll { $0.due <= now }
        for item in due { try send(item.answer, streamID: item.streamID, in: session) }
    }

    /// Until the next delayed answer is due; otherwise a second, to notice `stop()` even if
    /// the wake-up by shutdown were missed.
    private func pollTimeout() -> Int32 {
        guard let next = delayed.map(\.due).min() else { return 1000 }
        let wait = ContinuousClock.now.duration(to: next)
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, min(1000, milliseconds + 1)))
    }

    // MARK: Socket I/O

    /// Bytes read (0 = closed), or `nil` when nothing is available now.
    private func read(into buffer: inout [UInt8]) throws -> Int? {
        if let tls {
            switch try tls.read(into: &buffer) {
            case .transferred(let count): return count
            case .wantRead, .wantWrite: return nil
            case .closed: return 0
            }
        }
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
        throw APNSSimulatorError.errno("recv")
    }

    /// Writes as much pending output as the socket takes now.
    private func flush() throws {
        while outputOffset < output.count {
            let written: Int? = try output.withUnsafeBytes { raw in
                let pending = UnsafeRawBufferPointer(rebasing: raw[outputOffset...])
                if let tls {
                    switch try tls.write(pending) {
                    case .transferred(let count): return count
                    case .wantRead, .wantWrite: return nil
                    case .closed: throw APNSSimulatorError("the client closed the TLS session")
                    }
                }
                let count = Glibc.send(socket, pending.baseAddress, pending.count, Int32(MSG_NOSIGNAL))
                if count >= 0 { return count }
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
                throw APNSSimulatorError.errno("send")
            }
            guard let written else { break }
            outputOffset += written
        }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        } else if outputOffset >= 1 << 20 {
            output.removeFirst(outputOffset)
            outputOffset = 0
        }
    }
}
