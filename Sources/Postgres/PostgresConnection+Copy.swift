import CPostgres
import Foundation

/// Bulk appends with binary COPY.
extension PostgresConnection {
    /// Appends `rows` with `COPY <target> FROM STDIN (FORMAT binary)`, where `target` is a table
    /// and its column list (static SQL, no binds); returns how many rows were copied. Part of
    /// the surrounding transaction like any statement; a row the table refuses fails the whole
    /// COPY with the server's error, and the connection stays usable.
    @discardableResult
    public func copy(into target: PostgresQuery, rows: PostgresCopyRows) throws -> Int {
        precondition(target.binds.isEmpty, "COPY takes no parameters: the rows carry the values")
        let handle = try requireHandle()
        guard PQsendQueryParams(handle, "COPY \(target.sql) FROM STDIN (FORMAT binary)", 0, nil, nil, nil, nil, 0) == 1 else {
            throw sendFailure(handle)
        }
        traffic.record()
        let deadline = replyTimeout.map { ContinuousClock.now + $0 }
        let reply = try awaitResult(handle)
        guard let started = reply, PQresultStatus(started) == PGRES_COPY_IN else {
            // The statement failed before any data (no such table or column): its error.
            _ = try self.rows(from: reply)
            throw PostgresError.server(sqlState: "XX000", message: "COPY did not start")
        }
        PQclear(started)
        let data = rows.data
        var offset = 0
        while offset < data.count {
            let chunk = min(data.count - offset, 1 << 16)
            let sent = data.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: data.count) {
                    PQputCopyData(handle, $0 + offset, Int32(chunk))
                }
            }
            guard sent >= 0 else { throw connectionLost(handle) }
            if sent == 1 {
                offset += chunk
            } else {
                try waitWritable(handle, until: deadline)  // libpq's buffer is full (non-blocking mode)
            }
        }
        while true {
            let ended = PQputCopyEnd(handle, nil)
            guard ended >= 0 else { throw connectionLost(handle) }
            if ended == 1 { break }
            try waitWritable(handle, until: deadline)
        }
        return try self.rows(from: awaitResult(handle)).affectedRows
    }
}
