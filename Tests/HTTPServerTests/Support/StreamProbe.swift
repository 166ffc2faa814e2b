import Foundation
import HTTPServer
import Testing

/// What a streamed test body saw: the pieces the server asked for and how it was let go.
final class StreamProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = 0
    private var ending: HTTPBodyStream.Ending?
    private var endings = 0

    var piecesRequested: Int { lock.withLock { requested } }
    var ended: HTTPBodyStream.Ending? { lock.withLock { ending } }
    var endedCount: Int { lock.withLock { endings } }

    func asked() {
        lock.withLock { requested += 1 }
    }

    func end(_ value: HTTPBodyStream.Ending) {
        lock.withLock {
            ending = value
            endings += 1
        }
    }

    /// Waits for the server to let go of the body; the bound only keeps a broken server from
    /// hanging the suite.
    func waitForEnd(timeout: Duration = .seconds(120)) async -> HTTPBodyStream.Ending? {
        let deadline = ContinuousClock.now + timeout
        while ended == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return ended
    }

    /// The bytes of piece `index` of `/stream`: a pattern that differs piece to piece, so a
    /// piece out of order or repeated shows.
    static func piece(_ index: Int, size: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            for offset in 0..<size {
                buffer[offset] = UInt8(truncatingIfNeeded: offset &* 31 &+ index &* 7 &+ (offset >> 8))
            }
            count = size
        }
    }

    static func body(pieces: Int, size: Int, empty: Int? = nil) -> [UInt8] {
        (0..<pieces).flatMap { $0 == empty ? [] : piece($0, size: size) }
    }
}

/// Holds a streamed body's source until the test opens it.
final class StreamGate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isWaiting: Bool { lock.withLock { !waiters.isEmpty } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let proceed = lock.withLock {
                if isOpen { return true }
                waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let waiting = lock.withLock {
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        waiting.forEach { $0.resume() }
    }

    /// Waits for the source to reach the gate; the bound only keeps a broken server from hanging
    /// the suite.
    func waitUntilWaiting(timeout: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !isWaiting, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(isWaiting, "the stream's source never reached the gate")
    }
}
