#if canImport(Glibc)
import Glibc
#endif

/// A blocking listening TCP socket, as the local simulators (APNs, FCM) serve on: bound to a
/// numeric IPv4 or IPv6 address, a thread per accepted connection.
package enum TCPListener {
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Listens on `host:port` (port 0: any free one); the socket and the port it got.
    package static func open(host: String, port: UInt16) throws(Failure) -> (socket: Int32, port: UInt16) {
        var address6 = sockaddr_in6()
        var address4 = sockaddr_in()
        let isIPv6 = inet_pton(AF_INET6, host, &address6.sin6_addr) == 1
        guard isIPv6 || inet_pton(AF_INET, host, &address4.sin_addr) == 1 else {
            throw Failure(description: "not a numeric IP address: \(host)")
        }
        let socket = Glibc.socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw failure("socket") }
        var on: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isIPv6 {
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = port.bigEndian
            bound = withUnsafePointer(to: &address6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = port.bigEndian
            bound = withUnsafePointer(to: &address4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0, Glibc.listen(socket, 512) == 0 else {
            let error = failure("cannot listen on \(host):\(port)")
            close(socket)
            throw error
        }
        var boundAddress = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &boundAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        // sin_port and sin6_port sit at the same offset.
        return (socket, UInt16(bigEndian: boundAddress.sin6_port))
    }

    /// The next connection (with `TCP_NODELAY`), or nil when accepting failed because the
    /// listener is stopping (`isStopping`; stopping shuts the listener down).
    package static func accept(_ listener: Int32, isStopping: () -> Bool) -> Int32? {
        while true {
            let socket = Glibc.accept(listener, nil, nil)
            if socket < 0 {
                if isStopping() { return nil }
                if errno == EINTR || errno == ECONNABORTED { continue }
                // Out of descriptors or similar: wait a little rather than spin.
                usleep(10_000)
                continue
            }
            var on: Int32 = 1
            _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            return socket
        }
    }

    private static func failure(_ context: String) -> Failure {
        Failure(description: "\(context): \(String(cString: strerror(errno)))")
    }
}
