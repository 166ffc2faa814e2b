#if canImport(Glibc)
import Glibc
#endif

/// Socket addresses of a host, kept for a minute, so a thousand pools of one endpoint
/// resolve it once rather than a thousand times. Names are resolved on `ResolverThread`
/// (getaddrinfo blocks); numeric hosts here at once.
///
/// Not thread-safe: the event loop's thread owns it.
package final class AddressResolver {
    package struct Address: Sendable, Hashable {
        package var family: Int32
        package var socketType: Int32
        package var socketProtocol: Int32
        /// The raw `sockaddr`.
        package var bytes: [UInt8]
    }

    package enum Lookup {
        case ready([Address])
        /// Asked of the resolver thread; the loop hears back through `store`.
        case pending
        case failed(SocketError)
    }

    private enum Entry {
        case resolved(Result<[Address], SocketError>, expiresAt: Double)
        case pending
    }

    /// How long addresses are kept; a failure is kept for a second, so the connections that
    /// waited for it all see it.
    private let lifetime: Double
    private var entries: [String: Entry] = [:]
    private let thread: ResolverThread

    package init(lifetime: Double = 60, thread: ResolverThread) {
        self.lifetime = lifetime
        self.thread = thread
    }

    package func addresses(host: String, port: UInt16, now: Double) -> Lookup {
        let key = Self.key(host, port)
        switch entries[key] {
        case .resolved(.success(let addresses), let expiresAt) where expiresAt > now:
            return .ready(addresses)
        case .resolved(.failure(let error), let expiresAt) where expiresAt > now:
            return .failed(error)
        case .pending:
            return .pending
        case .resolved, nil:
            break
        }
        if Self.isNumeric(host) {
            let result = Result { () throws(SocketError) in try Self.resolve(host: host, port: port) }
            store(host: host, port: port, result, now: now)
            switch result {
            case .success(let addresses): return .ready(addresses)
            case .failure(let error): return .failed(error)
            }
        }
        entries[key] = .pending
        thread.lookUp(host: host, port: port)
        return .pending
    }

    /// A lookup's result, from the resolver thread by way of the loop.
    package func store(host: String, port: UInt16, _ result: Result<[Address], SocketError>, now: Double) {
        let expiresAt: Double
        switch result {
        case .success: expiresAt = now + lifetime
        case .failure: expiresAt = now + 1
        }
        entries[Self.key(host, port)] = .resolved(result, expiresAt: expiresAt)
    }

    /// Forgets a host after connecting to it failed, so the next attempt asks the resolver again.
    package func forget(host: String, port: UInt16) {
        let key = Self.key(host, port)
        if case .resolved(.success, _) = entries[key] { entries[key] = nil }
    }

    package func stop() {
        thread.stop()
    }

    private static func key(_ host: String, _ port: UInt16) -> String { "\(host)|\(port)" }

    private static func isNumeric(_ host: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
    }

    package static func resolve(host: String, port: UInt16) throws(SocketError) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw SocketError(.connectFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let info = cursor {
            cursor = info.pointee.ai_next
            guard let socketAddress = info.pointee.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: socketAddress, count: Int(info.pointee.ai_addrlen)))
            addresses.append(Address(
                family: info.pointee.ai_family, socketType: info.pointee.ai_socktype,
                socketProtocol: info.pointee.ai_protocol, bytes: bytes))
        }
        guard !addresses.isEmpty else { throw SocketError(.connectFailed, "no address for \(host)") }
        return addresses
    }
}
