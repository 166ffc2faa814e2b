import CPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waiting for the server without blocking past the reply deadline, and the errors of a
/// connection that failed or went away.
extension PostgresConnection {
    /// Sends what libpq has queued and collects the command's results, as `PQexec` would (the
    /// last result wins), but never waits past the reply deadline: then the connection is closed,
    /// since its protocol state is unknown, and the caller gets a connection failure.
    func awaitResult(_ handle: OpaquePointer) throws -> OpaquePointer? {
        let deadline = replyTimeout.map { ContinuousClock.now + $0 }
        try flush(handle, until: deadline)
        var last: OpaquePointer?
        while true {
            let next: OpaquePointer?
            do {
                next = try nextResult(handle, until: deadline)
            } catch {
                PQclear(last)
                throw error
            }
            guard let result = next else { break }
            PQclear(last)
            last = result
            let status = PQresultStatus(result)
            if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH
                || PQstatus(handle) != CONNECTION_OK { break }
        }
        return last
    }

    /// Sends everything libpq has queued, within the deadline.
    func flush(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant?) throws {
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { return }
            guard flushed > 0 else { throw connectionLost(handle) }
            // libpq asks to read while waiting to write, so a full socket cannot deadlock.
            if try waitUntil(deadline, handle, events: Int16(POLLIN | POLLOUT)) & Int16(POLLIN) != 0 {
                guard PQconsumeInput(handle) == 1 else { throw connectionLost(handle) }
            }
        }
    }

    /// The next result, reading from the socket until libpq has it, within the deadline.
    func nextResult(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant?) throws -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            _ = try waitUntil(deadline, handle, events: Int16(POLLIN))
            guard PQconsumeInput(handle) == 1 else { throw connectionLost(handle) }
        }
        return PQgetResult(handle)
    }

    /// Waits until libpq may take more to send, reading what the server sent meanwhile.
    func waitWritable(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant?) throws {
        if try waitUntil(deadline, handle, events: Int16(POLLIN | POLLOUT)) & Int16(POLLIN) != 0 {
            guard PQconsumeInput(handle) == 1 else { throw connectionLost(handle) }
        }
        guard PQflush(handle) >= 0 else { throw connectionLost(handle) }
    }

    /// Polls the socket for `events` until `deadline`; past it, closes the connection and throws.
    func waitUntil(_ deadline: ContinuousClock.Instant?, _ handle: OpaquePointer, events: Int16) throws -> Int16 {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let remaining = PostgresTimeouts.milliseconds(deadline - ContinuousClock.now)
                guard remaining > 0 else { throw replyTimedOut() }
                timeout = Int32(clamping: remaining)
            }
            var descriptor = pollfd(fd: PQsocket(handle), events: events, revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            if ready > 0 { return descriptor.revents }
            if ready < 0, errno != EINTR { throw connectionLost(handle) }
        }
    }

    func replyTimedOut() -> PostgresError {
        let waited = replyTimeout.map { " within \(PostgresTimeouts.milliseconds($0)) ms" } ?? ""
        close()
        return .connectionFailure("no reply from the server\(waited); the connection was closed")
    }

    func connectionLost(_ handle: OpaquePointer) -> PostgresError {
        .connectionFailure(Self.lastErrorMessage(handle))
    }

    /// libpq refused to send: a lost connection, or a misuse such as a command still in progress.
    func sendFailure(_ handle: OpaquePointer) -> PostgresError {
        PQstatus(handle) == CONNECTION_OK
            ? .server(sqlState: "XX000", message: Self.lastErrorMessage(handle))
            : connectionLost(handle)
    }

    func drainNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
        var notifications: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            notifications.append(PostgresNotification(
                channel: String(cString: notify.pointee.relname),
                payload: String(cString: notify.pointee.extra)
            ))
            PQfreemem(notify)
        }
        return notifications
    }

    func waitReadable(_ handle: OpaquePointer, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    static func lastErrorMessage(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
