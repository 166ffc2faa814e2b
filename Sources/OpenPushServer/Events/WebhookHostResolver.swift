import Foundation
import OpenPushCore

/// Resolves a webhook's host once per attempt, off the event loop (getaddrinfo blocks: it runs
/// on a Dispatch worker thread, never on the cooperative pool).
enum WebhookHostResolver {
    /// Why no address came back.
    struct Failure: Error, Sendable {
        var message: String
    }

    static func resolve(host: String, port: Int) async -> Result<[NetworkAddress], Failure> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: resolveNow(host: host, port: port))
            }
        }
    }

    private static func resolveNow(host: String, port: Int) -> Result<[NetworkAddress], Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(Failure(message: "could not resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [NetworkAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                var bytes: [UInt8]?
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                case AF_INET6:
                    bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                default:
                    bytes = nil
                }
                if let bytes, let parsed = NetworkAddress(bytes: bytes), !addresses.contains(parsed) {
                    addresses.append(parsed)
                }
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(Failure(message: "could not resolve \(host): no address")) : .success(addresses)
    }
}
