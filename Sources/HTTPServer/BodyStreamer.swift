import CMicroHTTPD

/// One streamed body on one connection, behind libmicrohttpd's content-reader callback. The MHD
/// response holds it (retained) until its free callback.
///
/// When the piece in hand is used up, the reader suspends the connection, fetches the next piece
/// on a task and returns 0; the task resumes the connection, and MHD calls the reader again. So
/// no MHD thread waits on the source, a slow client never makes it read ahead (MHD asks only once
/// its buffer has gone out), and memory is one piece plus MHD's block buffer per download.
final class BodyStreamer: @unchecked Sendable {
    /// MHD's buffer between the reader and the socket.
    static let blockSize = 64 * 1024
    // MHD_CONTENT_READER_END_OF_STREAM and _END_WITH_ERROR: casts in C macros Swift cannot import.
    static let endOfStream = -1
    static let endWithError = -2

    private enum Progress {
        case streaming
        /// The source said there is no more.
        case ended
        case failed
        /// Shutdown resumed the connection while a piece was being fetched.
        case stopped
    }

    private struct State {
        var piece: [UInt8] = []
        var offset = 0
        var nextIndex = 0
        var handedOver: UInt64 = 0
        var progress = Progress.streaming
        var fetching: Task<Void, Never>?
    }

    let stream: HTTPBodyStream
    let context: RequestContext
    // Weak: the last reference must not go on an MHD thread, whose server's deinit would stop
    // the daemon from inside it. A fetching task holds the server strongly while it is suspended.
    private weak var server: HTTPServer?
    private let state = Locked(State())

    init(stream: HTTPBodyStream, context: RequestContext, server: HTTPServer) {
        self.stream = stream
        self.context = context
        self.server = server
    }

    /// The content reader: copies up to `max` bytes into `buffer`, or starts fetching and returns
    /// 0 with the connection suspended, or ends the stream.
    func read(into buffer: UnsafeMutableRawPointer, max: Int) -> Int {
        state.withLock { state -> Int in
            switch state.progress {
            case .failed, .stopped: return Self.endWithError
            case .ended: return Self.endOfStream
            case .streaming: break
            }
            if state.offset < state.piece.count {
                let count = min(max, state.piece.count - state.offset)
                state.piece.withUnsafeBytes { bytes in
                    buffer.copyMemory(from: bytes.baseAddress! + state.offset, byteCount: count)
                }
                state.offset += count
                state.handedOver += UInt64(count)
                return count
            }
            state.piece = []
            state.offset = 0
            // Called again while a fetch is out only when shutdown resumed the connection.
            guard state.fetching == nil, let server, server.suspendStream(context) else {
                state.progress = .stopped
                return Self.endWithError
            }
            state.fetching = Task { await self.fetch(server) }
            return 0
        }
    }

    private func fetch(_ server: HTTPServer) async {
        var outcome: Result<[UInt8]?, any Error>
        while true {
            let index = state.withLock { state in
                defer { state.nextIndex += 1 }
                return state.nextIndex
            }
            do {
                outcome = .success(try await stream.next(index))
            } catch {
                outcome = .failure(error)
            }
            if case .success(let piece?) = outcome, piece.isEmpty { continue }
            break
        }
        state.withLock { state in
            state.fetching = nil
            switch outcome {
            case .success(let piece?): state.piece = piece
            case .success(nil): state.progress = .ended
            case .failure: state.progress = .failed
            }
        }
        server.resumeStream(context)
    }

    /// MHD's free callback: the connection is done with the body.
    func release() {
        let (ending, fetching) = state.withLock { state -> (HTTPBodyStream.Ending, Task<Void, Never>?) in
            // With a length, MHD never asks past it; a source ending short of it is a failure.
            let complete = stream.length.map { state.handedOver == $0 } ?? (state.progress == .ended)
            let ending: HTTPBodyStream.Ending = switch state.progress {
            case _ where complete: .finished
            case .failed, .ended: .failed
            case .streaming, .stopped: .cancelled
            }
            return (ending, state.fetching)
        }
        fetching?.cancel()
        stream.ended(ending)
    }
}

/// `MHD_ContentReaderCallback` for streamed bodies.
func readStreamedBody(_ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int) -> Int {
    guard let cls, let buffer else { return BodyStreamer.endWithError }
    return Unmanaged<BodyStreamer>.fromOpaque(cls).takeUnretainedValue().read(into: UnsafeMutableRawPointer(buffer), max: max)
}

/// `MHD_ContentReaderFreeCallback`: balances the retain taken when the response was made.
func releaseStreamedBody(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let streamer = Unmanaged<BodyStreamer>.fromOpaque(cls)
    streamer.takeUnretainedValue().release()
    streamer.release()
}
