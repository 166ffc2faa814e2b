import Foundation
import OpenPushCore
import Synchronization

/// Resolves a webhook's host once per attempt, off the event loop, within a deadline.
/// getaddrinfo blocks and has no timeout of its own (a name server that never answers holds it
/// for as long as the system's resolver retries): it runs on a thread of its own, never on the
/// cooperative pool or Dispatch's, and the attempt stops waiting for it at the deadline.
enum WebhookHostResolver {
    /// Why no address came back.
    struct Failure: Error, Sendable {
        var message: String
    }

    typealias Lookup = @Sendable (_ host: String, _ port: Int) -> Result<[NetworkAddress], Failure>

    /// The first of the answer and the deadline; `lookup` is getaddrinfo (tests pass a slow one).
    static func resolve(host: String, port: Int, timeout: Duration,
                        lookup: @escaping Lookup = resolveNow) async -> Result<[NetworkAddress], Failure> {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let thread = Thread { once.resume(lookup(host, port)) }
            thread.name = "openpush.webhook-resolve"
            thread.start()
            let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(max(1, milliseconds))) {
                once.resume(.failure(Failure(message: "could not resolve \(host): no answer within \(timeout)")))
            }
        }
    }

    /// Resumes its continuation with the first result given; later ones are dropped.
    private final class ResumeOnce: Sendable {
        private let continuation: Mutex<CheckedContinuation<Result<[NetworkAddress], Failure>, Never>?>

        init(_ continuation: CheckedContinuation<Result<[NetworkAddress], Failure>, Never>) {
            self.continuation = Mutex(continuation)
        }

        func resume(_ result: Result<[NetworkAddress], Failure>) {
            continuation.withLock { pending in
                defer { pending = nil }
                return pending
            }?.resume(returning: result)
        }
    }

    static func resolveNow(host: String, port: Int) -> Result<[NetworkAddress], Failure> {
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
