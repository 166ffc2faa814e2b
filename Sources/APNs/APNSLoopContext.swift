import EventLoop

/// What the connections of one event loop share: the epoll instance their sockets are
/// registered with, the address cache, one read buffer (a buffer per connection would be
/// 64 KiB times every connection of every app), and the connections whose reads were cut
/// short and must go on without waiting for epoll.
///
/// Not thread-safe: the event loop's thread owns it.
final class APNSLoopContext {
    /// The wake signal's token; sockets get the ones after it.
    static let wakeToken: UInt64 = 0

    let epoll = Epoll()
    let resolver: AddressResolver
    var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Connections by the token their socket is registered with.
    private(set) var registered: [UInt64: APNSConnection] = [:]
    /// Read up to their bound with more possibly buffered inside TLS, where epoll cannot see it.
    var unfinishedReads: [APNSConnection] = []
    private var nextToken: UInt64 = 1

    init(resolver: AddressResolver) {
        self.resolver = resolver
    }

    func register(_ connection: APNSConnection, descriptor: Int32, interest: Epoll.Interest) -> UInt64 {
        let token = nextToken
        nextToken += 1
        registered[token] = connection
        epoll.add(descriptor, token: token, interest: interest)
        return token
    }

    func unregister(token: UInt64, descriptor: Int32) {
        guard registered.removeValue(forKey: token) != nil else { return }
        epoll.remove(descriptor)
    }
}
