import Foundation
import HTTP2

#if canImport(Glibc)
import Glibc
#endif

/// A minimal h2c client for the simulator: `HTTP2ClientSession` over a blocking TCP socket,
/// run on its own thread so the cooperative pool never blocks. Independent of any FCM client.
enum FCMSimulatorTestClient {
    struct Request: Sendable {
        var path: String
        var accessToken: String?
        var body: [UInt8]
        var method = "POST"
    }

    struct Response: Sendable {
        var status: Int
        var headers: [HTTP2Header]
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends every request at once on one connection; the answers in request order.
    static func send(_ requests: [Request], port: UInt16) async throws -> [Response] {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try exchange(requests, port: port) }) }.start()
        }
    }

    static func send(_ request: Request, port: UInt16) async throws -> Response {
        try await send([request], port: port)[0]
    }

    private static func exchange(_ requests: [Request], port: UInt16) throws -> [Response] {
        signal(SIGPIPE, SIG_IGN)
        let socket = try connect(port: port)
        defer { close(socket) }
        let session = try HTTP2ClientSession()
        var streams: [Int32] = []
        for request in requests {
            var headers: [(name: String, value: String)] = [
                (":method", request.method), (":scheme", "http"), (":authority", "127.0.0.1:\(port)"), (":path", request.path),
                ("content-type", "application/json"),
            ]
            if let token = request.accessToken { headers.append(("authorization", "Bearer \(token)")) }
            streams.append(try session.submitRequest(headers: headers, body: request.body))
        }
        var open = Set(streams)
        var responses: [Int32: Response] = [:]
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty {
            try writeAll(try session.pendingOutput(), to: socket)
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw ClientError(message: "the connection ended with \(open.count) streams open") }
            for event in try session.receive(Array(buffer[0..<count])) {
                switch event {
                case .response(let streamID, let status, let headers, let body):
                    responses[streamID] = Response(status: status, headers: headers, body: body)
                    open.remove(streamID)
                case .streamReset(let streamID, _):
                    open.remove(streamID)
                default: break
                }
            }
        }
        try? session.submitGoAway()
        if let output = try? session.pendingOutput() { try? writeAll(output, to: socket) }
        return try streams.map { id in
            guard let response = responses[id] else { throw ClientError(message: "stream \(id) was reset") }
            return response
        }
    }

    private static func connect(port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw ClientError(message: "connect: \(String(cString: strerror(errno)))")
        }
        // A safety net only: the tests wait on answers, and a dead simulator ends them.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
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
}
