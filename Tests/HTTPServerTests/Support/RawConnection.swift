import Foundation

/// A plain TCP client that reads an answer at its own pace (curl always reads as fast as it
/// can). Blocking calls run on threads of their own, off the two-thread cooperative pool the
/// server's tasks need.
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1; `receiveBuffer` pins the socket's buffer, so the kernel cannot
    /// grow it to hold much of the answer on the client's side.
    init(port: UInt16, receiveBuffer: Int32 = 64 * 1024) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawConnectionError("socket: \(errno)") }
        var size = receiveBuffer
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        // A broken server fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw RawConnectionError("connect: \(errno)")
        }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw RawConnectionError("send: \(errno)")
        }
    }

    /// Up to `max` bytes; empty at the end of the stream.
    func receive(max: Int = 64 * 1024) async throws -> [UInt8] {
        let descriptor = descriptor
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: max)
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, max, 0) }
                if count < 0 {
                    continuation.resume(throwing: RawConnectionError("recv: \(errno)"))
                } else {
                    continuation.resume(returning: Array(buffer.prefix(count)))
                }
            }
        }
    }

    /// Reads until the headers' end; returns them and whatever body bytes came with them.
    func receiveHead() async throws -> (head: String, body: [UInt8]) {
        var received: [UInt8] = []
        let separator = Array("\r\n\r\n".utf8)
        while true {
            let bytes = try await receive(max: 1024)
            guard !bytes.isEmpty else { throw RawConnectionError("closed before the headers' end") }
            received += bytes
            if let end = received.firstRange(of: separator) {
                return (String(decoding: received[..<end.lowerBound], as: UTF8.self), Array(received[end.upperBound...]))
            }
        }
    }

    func close() {
        Glibc.close(descriptor)
    }
}

struct RawConnectionError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
