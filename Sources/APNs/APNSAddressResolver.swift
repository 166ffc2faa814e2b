#if canImport(Glibc)
import Glibc
#endif

/// Socket addresses of a host, resolved with getaddrinfo and kept for a minute, so a
/// thousand pools of one endpoint resolve it once rather than a thousand times.
///
/// getaddrinfo blocks: a name the resolver is slow on stalls the event loop while it is
/// resolved (once a minute per host; APNs has two). Numeric hosts never wait.
/// Not thread-safe: the event loop's thread owns it.
final class APNSAddressResolver {
    struct Address: Sendable, Hashable {
        var family: Int32
        var socketType: Int32
        var socketProtocol: Int32
        /// The raw `sockaddr`.
        var bytes: [UInt8]
    }

    private struct Entry {
        var addresses: [Address]
        var expiresAt: Double
    }

    private let lifetime: Double
    private var entries: [String: Entry] = [:]

    init(lifetime: Double = 60) {
        self.lifetime = lifetime
    }

    func addresses(host: String, port: UInt16, now: Double) throws(APNSTransportError) -> [Address] {
        let key = "\(host)|\(port)"
        if let entry = entries[key], entry.expiresAt > now { return entry.addresses }
        let addresses = try Self.resolve(host: host, port: port)
        entries[key] = Entry(addresses: addresses, expiresAt: now + lifetime)
        return addresses
    }

    /// Forgets a host after connecting to it failed, so the next attempt asks the resolver again.
    func forget(host: String, port: UInt16) {
        entries["\(host)|\(port)"] = nil
    }

    private static func resolve(host: String, port: UInt16) throws(APNSTransportError) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw APNSTransportError(.connectFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
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
        guard !addresses.isEmpty else { throw APNSTransportError(.connectFailed, "no address for \(host)") }
        return addresses
    }
}
