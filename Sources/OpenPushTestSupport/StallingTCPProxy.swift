import Foundation
import Postgres
#if canImport(Glibc)
import Glibc
#endif

/// A TCP forwarder that a test can stall: while stalled it keeps every socket open and accepts
/// new ones, but reads and writes nothing, the way a database behind a dead network link or a
/// frozen host looks to a client. Its kernel still acknowledges TCP, so keepalives and
/// `tcp_user_timeout` do not notice: only the client's own deadlines can. `resume()` forwards
/// again, on the same sockets.
package final class StallingTCPProxy: @unchecked Sendable {
    /// The port on 127.0.0.1 clients connect to.
    package let port: Int
    private let upstreamHost: String
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var stalled = false
    private var closed = false
    private var wakePipes: [Int32] = []

    package init(upstreamHost: String, upstreamPort: Int) throws {
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ProxyError("socket: \(errno)") }
        var address = Self.address(host: "127.0.0.1", port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 64) == 0 else {
            Glibc.close(listener)
            throw ProxyError("bind/listen: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "test.proxy.accept"
        thread.start()
    }

    /// A proxy in front of the server `conninfo` names, and `conninfo` rewritten to go through
    /// it. A Unix-socket conninfo (the test clusters) is reached over the 127.0.0.1 it also listens on.
    package static func inFront(of conninfo: String) throws -> (proxy: StallingTCPProxy, conninfo: String) {
        let values = Dictionary(try PostgresConnection.conninfoValues(conninfo).map { ($0.key, $0.value) },
                                uniquingKeysWith: { $1 })
        // The proxy dials IPv4 addresses only; the test clusters also listen on 127.0.0.1.
        let named = values["hostaddr"] ?? values["host"] ?? ""
        let host = named.hasPrefix("/") || named.isEmpty || named == "localhost" ? "127.0.0.1" : named
        let proxy = try StallingTCPProxy(upstreamHost: host, upstreamPort: values["port"].flatMap { Int($0) } ?? 5432)
        // Through the stall, a login must give up at the product's bound, not the harness's.
        let proxied = try PostgresConnection.conninfo(TestDatabase.withoutHarnessOptions(conninfo), replacing: [
            "host": "127.0.0.1", "hostaddr": "127.0.0.1", "port": String(proxy.port),
        ])
        return (proxy, proxied)
    }

    /// Stops forwarding in both directions; sockets stay open.
    package func stall() {
        setStalled(true)
    }

    /// Forwards again whatever waited in the sockets, and everything after.
    package func resume() {
        setStalled(false)
    }

    /// Closes the listener and every forwarded connection. Call it: the proxy's threads keep it alive.
    package func close() {
        let first = lock.withLock {
            defer { closed = true }
            wakeAll()
            return !closed
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private func setStalled(_ value: Bool) {
        lock.withLock {
            stalled = value
            wakeAll()
        }
    }

    /// Under the lock, so that no pipe is closed (and its number reused) while being written.
    private func wakeAll() {
        var byte: UInt8 = 1
        for pipe in wakePipes { _ = write(pipe, &byte, 1) }
    }

    private func acceptLoop() {
        defer { Glibc.close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return  // shut down by close()
            }
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else {
                Glibc.close(client)
                continue
            }
            let upstream = connectUpstream()
            let accepted = lock.withLock {
                guard !closed else { return false }
                wakePipes.append(ends[1])
                return true
            }
            guard accepted, upstream >= 0 else {
                [client, upstream, ends[0], ends[1]].filter { $0 >= 0 }.forEach { Glibc.close($0) }
                if !accepted { return }
                continue
            }
            let (wake, wakeWrite) = (ends[0], ends[1])
            let thread = Thread { [self] in forward(client: client, upstream: upstream, wake: wake, wakeWrite: wakeWrite) }
            thread.name = "test.proxy.forward"
            thread.start()
        }
    }

    /// Copies bytes both ways until either side closes or the proxy does; while stalled, waits
    /// only on the wake pipe and leaves both sockets untouched.
    private func forward(client: Int32, upstream: Int32, wake: Int32, wakeWrite: Int32) {
        defer {
            lock.withLock { wakePipes.removeAll { $0 == wakeWrite } }
            [client, upstream, wake, wakeWrite].forEach { Glibc.close($0) }
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (isStalled, isClosed) = lock.withLock { (stalled, closed) }
            if isClosed { return }
            var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if !isStalled {
                descriptors.append(pollfd(fd: client, events: Int16(POLLIN), revents: 0))
                descriptors.append(pollfd(fd: upstream, events: Int16(POLLIN), revents: 0))
            }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { return }
            if descriptors[0].revents != 0 {
                _ = read(wake, &buffer, buffer.count)
                continue  // the state changed: look again before touching the sockets
            }
            for (index, (from, to)) in [(client, upstream), (upstream, client)].enumerated()
            where descriptors.count > index + 1 && descriptors[index + 1].revents != 0 {
                let count = read(from, &buffer, buffer.count)
                guard count > 0, Self.writeAll(to, buffer, count) else { return }
            }
        }
    }

    private func connectUpstream() -> Int32 {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0 else { return -1 }
        var address = Self.address(host: upstreamHost, port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(upstream)
            return -1
        }
        return upstream
    }

    private static func writeAll(_ descriptor: Int32, _ buffer: [UInt8], _ count: Int) -> Bool {
        var written = 0
        while written < count {
            let result = buffer.withUnsafeBytes { send(descriptor, $0.baseAddress! + written, count - written, Int32(MSG_NOSIGNAL)) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return false }
            written += result
        }
        return true
    }

    private static func address(host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }
}

package struct ProxyError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
