#if canImport(Glibc)
import Glibc
#endif

/// A Linux epoll instance: which of many descriptors are ready, in one call, whatever their
/// number. Level-triggered; each descriptor carries a token that names its owner.
///
/// Swift's Glibc module does not include <sys/epoll.h>, so the three calls are looked up in
/// libc by name and called through C function pointers (the C calling convention, not a
/// guess at Swift's); `epoll_event` is laid out by hand (packed on x86_64).
///
/// Not thread-safe: the event loop's thread owns it.
package final class Epoll {
    package struct Interest: OptionSet, Hashable, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let readable = Interest(rawValue: 0x001)  // EPOLLIN
        package static let writable = Interest(rawValue: 0x004)  // EPOLLOUT
        /// Reported whether asked or not.
        package static let error = Interest(rawValue: 0x008)  // EPOLLERR
        package static let hangUp = Interest(rawValue: 0x010)  // EPOLLHUP
    }

    package struct Event {
        package var token: UInt64
        package var ready: Interest
    }

    private typealias Create = @convention(c) (Int32) -> Int32
    private typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

    private struct Functions: @unchecked Sendable {
        let create: Create
        let control: Control
        let wait: Wait
    }

    private static let functions: Functions = {
        let libc = dlopen(nil, RTLD_NOW)
        func lookUp<F>(_ name: String, as type: F.Type) -> F {
            guard let symbol = dlsym(libc, name) else { fatalError("libc has no \(name)") }
            return unsafeBitCast(symbol, to: type)
        }
        return Functions(
            create: lookUp("epoll_create1", as: Create.self), control: lookUp("epoll_ctl", as: Control.self),
            wait: lookUp("epoll_wait", as: Wait.self))
    }()

    #if arch(x86_64)
    private static let eventSize = 12
    #else
    private static let eventSize = 16
    #endif
    private static let dataOffset = eventSize - 8
    private static let add: Int32 = 1, remove: Int32 = 2, modify: Int32 = 3

    package let descriptor: Int32
    private let capacity = 256
    private let buffer: UnsafeMutableRawPointer

    package init() {
        descriptor = Self.functions.create(Int32(O_CLOEXEC))
        precondition(descriptor >= 0, "epoll_create1: \(errno)")
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.eventSize, alignment: 8)
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    package func add(_ fd: Int32, token: UInt64, interest: Interest) {
        control(Self.add, fd, token: token, interest: interest)
    }

    package func modify(_ fd: Int32, token: UInt64, interest: Interest) {
        control(Self.modify, fd, token: token, interest: interest)
    }

    /// Before closing `fd`; closing alone would do unless the descriptor was duplicated.
    package func remove(_ fd: Int32) {
        _ = Self.functions.control(descriptor, Self.remove, fd, buffer)
    }

    /// Waits up to `timeout` milliseconds (−1: until something happens) and returns what is ready.
    package func wait(timeout: Int32) -> [Event] {
        let count = Self.functions.wait(descriptor, buffer, Int32(capacity), timeout)
        guard count > 0 else { return [] }
        return (0..<Int(count)).map { index in
            let base = buffer + index * Self.eventSize
            return Event(
                token: base.loadUnaligned(fromByteOffset: Self.dataOffset, as: UInt64.self),
                ready: Interest(rawValue: base.loadUnaligned(as: UInt32.self)))
        }
    }

    private func control(_ operation: Int32, _ fd: Int32, token: UInt64, interest: Interest) {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        event.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: interest.rawValue, toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: token, toByteOffset: Self.dataOffset, as: UInt64.self)
            let result = Self.functions.control(descriptor, operation, fd, bytes.baseAddress)
            precondition(result == 0 || operation == Self.remove, "epoll_ctl(\(operation), \(fd)): \(errno)")
        }
    }
}
