import Crypto
import Foundation
import HTTP2

/// A minimal real client for the simulator: `HTTP2ClientSession` over a blocking TCP socket
/// (optionally TLS), run on its own thread so the cooperative pool never blocks.
/// Deliberately independent of the APNs client, which is built separately.
enum APNSSimulatorTestClient {
    struct Push: Sendable {
        var token: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        var method = "POST"
        var path: String?
    }

    struct Outcome: Sendable {
        var events: [HTTP2Event]
        var negotiatedALPN: String?

        var responses: [Int32: (status: Int, headers: [HTTP2Header], body: [UInt8])] {
            var result: [Int32: (status: Int, headers: [HTTP2Header], body: [UInt8])] = [:]
            for case let .response(streamID, status, headers, body) in events {
                result[streamID] = (status, headers, body)
            }
            return result
        }
    }

    /// Opens one connection, sends every push at once, and returns the client events once
    /// each stream has ended (or the connection has).
    static func send(
        _ pushes: [Push], port: UInt16, caFile: String? = nil, hostname: String = "localhost", address: String = "127.0.0.1"
    ) async throws -> Outcome {
        try await Self.onOwnThread {
            try exchange(pushes, port: port, address: address, caFile: caFile, hostname: hostname)
        }
    }

    /// Streams are numbered 1, 3, 5, … in submission order on a fresh connection.
    static func streamID(_ index: Int) -> Int32 { Int32(2 * index + 1) }

    private static func exchange(_ pushes: [Push], port: UInt16, address: String, caFile: String?, hostname: String) throws -> Outcome {
        signal(SIGPIPE, SIG_IGN)
        let socket = try connect(port: port, address: address)
        defer { close(socket) }
        var tls: TLSConnection?
        if let caFile {
            let connection = try TLSConnection(context: try TLSClientContext(caFile: caFile), socket: socket, hostname: hostname)
            try connection.handshake()
            tls = connection
        }
        let session = try HTTP2ClientSession()
        var open: Set<Int32> = []
        for push in pushes {
            let headers: [(name: String, value: String)] = [
                (":method", push.method), (":scheme", tls == nil ? "http" : "https"),
                (":authority", "localhost:\(port)"), (":path", push.path ?? "/3/device/\(push.token)"),
            ] + push.headers
            open.insert(try session.submitRequest(headers: headers, body: push.body))
        }
        var events: [HTTP2Event] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty {
            let output = try session.pendingOutput()
            if !output.isEmpty {
                if let tls { try tls.write(output) } else { try writeAll(output, to: socket) }
            }
            let count: Int
            if let tls { count = try tls.read(into: &buffer) } else {
                count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            }
            guard count > 0 else { break }  // closed, or the 10 s receive timeout
            let received = try session.receive(Array(buffer[0..<count]))
            events += received
            for event in received {
                switch event {
                case .response(let streamID, _, _, _), .streamReset(let streamID, _): open.remove(streamID)
                default: break
                }
            }
        }
        // Let the simulator see a clean goodbye.
        try? session.submitGoAway()
        if let output = try? session.pendingOutput() {
            if let tls { try? tls.write(output) } else { try? writeAll(output, to: socket) }
        }
        tls?.shutdown()
        return Outcome(events: events, negotiatedALPN: tls?.negotiatedALPN)
    }

    private static func connect(port: UInt16, address ipv4: String) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(ipv4)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw ClientError(message: "connect: \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    private static func writeAll(_ bytes: [UInt8], to socket: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw ClientError(message: "send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    struct ClientError: Error {
        var message: String
    }

    /// Runs blocking work on a new thread and resumes the caller with its result.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
        }
    }
}
