/// A response body produced piece by piece while it is sent. The server asks for a piece only
/// once the previous one has been handed to the socket, so a download holds one piece at a time
/// however slow its client, and no server thread waits while a piece is produced.
package struct HTTPBodyStream: Sendable {
    /// How the server was done with a stream.
    package enum Ending: Sendable, Equatable {
        /// Every byte was handed to the connection.
        case finished
        /// `next` threw: the connection was closed short of the end.
        case failed
        /// The client went away (or the server stopped) before the end.
        case cancelled
    }

    /// Sent as `Content-Length`; nil sends the body chunked.
    package var length: UInt64?
    /// The piece at `index` (0, 1, 2, … in order, each asked once), nil after the last. Runs on a
    /// task of its own, cancelled if the connection ends first. An empty piece is skipped.
    package var next: @Sendable (_ index: Int) async throws -> [UInt8]?
    /// Called once when the server lets go of the body, however it ended; on a server thread, so
    /// it must not block.
    package var ended: @Sendable (Ending) -> Void

    package init(length: UInt64?, next: @escaping @Sendable (_ index: Int) async throws -> [UInt8]?,
                 ended: @escaping @Sendable (Ending) -> Void = { _ in }) {
        self.length = length
        self.next = next
        self.ended = ended
    }

    /// Every piece, in order, in one buffer: for in-process callers (tests) without a socket.
    package func collect() async throws -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        do {
            while let piece = try await next(index) {
                body += piece
                index += 1
            }
        } catch {
            ended(.failed)
            throw error
        }
        ended(.finished)
        return body
    }
}
