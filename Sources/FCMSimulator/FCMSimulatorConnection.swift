import Foundation
import HTTP2

#if canImport(Glibc)
import Glibc
#endif

/// One client connection of the simulator's h2c port, run on its own thread: a poll loop
/// over a non-blocking socket that feeds an `HTTP2ServerSession` and answers each complete
/// request with `FCMSimulator.answerSend`.
final class FCMSimulatorConnection {
    private let simulator: FCMSimulator
    private let socket: Int32
    private var output: [UInt8] = []
    private var outputOffset = 0

    /// Above this much unsent output, stop reading requests until the client reads.
    private static let outputHighWater = 1 << 20

    init(simulator: FCMSimulator, socket: Int32) {
        self.simulator = simulator
        self.socket = socket
    }

    /// Serves until the client goes, the session ends, or the simulator stops. The caller
    /// closes the socket.
    func run() {
        do {
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            let session = try HTTP2ServerSession(settings: [.maxConcurrentStreams(1000), .initialWindowSize(1 << 20)])
            try serve(session)
        } catch {
            // A broken connection only ends itself; the client sees the socket close.
        }
    }

    private func serve(_ session: HTTP2ServerSession) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            output += try session.pendingOutput()
            try flush()
            if !session.wantsRead && !session.wantsWrite && outputOffset == output.count { return }
            if simulator.isStopping { return }

            var events = Int16(0)
            if output.count - outputOffset < Self.outputHighWater { events |= Int16(POLLIN) }
            if outputOffset < output.count { events |= Int16(POLLOUT) }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            // A second at most, to notice `stop()` even if the wake-up by shutdown were missed.
            let ready = poll(&descriptor, 1, 1000)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptor.revents & Int16(POLLERR | POLLNVAL) != 0 { return }
            guard descriptor.revents & Int16(POLLIN | POLLHUP) != 0 else { continue }
            // Read until the socket is drained, but give writes a turn every 256 KiB.
            var total = 0
            while total < 1 << 18 {
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count == 0 { return }  // the client closed
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
                    return
                }
                total += count
                for request in try session.receive(Array(buffer[0..<count])) {
                    let answer = simulator.answerSend(
                        method: request.method, path: request.path, authorization: request.value("authorization"), body: request.body)
                    _ = try session.respond(streamID: request.streamID, status: answer.status, headers: answer.headers, body: answer.body)
                }
            }
        }
    }

    /// Writes as much pending output as the socket takes now.
    private func flush() throws {
        while outputOffset < output.count {
            let written = output.withUnsafeBytes { raw in
                Glibc.send(socket, raw.baseAddress! + outputOffset, raw.count - outputOffset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
                throw FCMSimulatorError.errno("send")
            }
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
