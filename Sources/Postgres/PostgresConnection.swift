import CPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection; the only type that touches libpq pointers. Every call blocks, so
/// use it only on threads you own (the pool and listener do), and from one thread at a time.
public final class PostgresConnection {
    private var handle: OpaquePointer?

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        close()
    }

    /// Connects (blocking). `connect_timeout=2` applies unless `conninfo` sets its own, so an
    /// unreachable server fails fast instead of hanging. Accepts `key=value` strings and URIs.
    public static func connect(_ conninfo: String) throws -> PostgresConnection {
        // Later keywords win; `dbname` is expanded from `conninfo`, so it overrides our defaults.
        let handle = withCStrings(["connect_timeout", "client_encoding", "dbname"]) { keywords in
            withCStrings(["2", "UTF8", conninfo]) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let handle else { throw PostgresError.connectionFailure("libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = lastErrorMessage(handle)
            PQfinish(handle)
            throw PostgresError.connectionFailure(message)
        }
        let connection = PostgresConnection(handle: handle)
        // Pin the output formats the decoders expect, whatever the server's defaults are.
        try connection.execute(script: """
            SET DateStyle TO ISO; SET TimeZone TO 'UTC'; SET bytea_output TO hex; SET extra_float_digits TO 3
            """)
        return connection
    }

    /// Runs one statement with `PQexecParams`: parameters and results in text format.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        let handle = try requireHandle()
        let values: [UnsafeMutablePointer<CChar>?] = query.binds.map { bind in bind.text.map { strdup($0) } }
        defer { values.forEach { free($0) } }
        let result = values.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
            PQexecParams(handle, query.sql, Int32(buffer.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        return try rows(from: result)
    }

    /// Runs a script of several statements with `PQexec` (migrations). Returns nothing:
    /// libpq only reports the last statement's result.
    public func execute(script: String) throws {
        let handle = try requireHandle()
        _ = try rows(from: PQexec(handle, script))
    }

    /// What libpq knows without a round trip; a dead peer shows up after the next read.
    public var isHealthy: Bool {
        handle.map { PQstatus($0) == CONNECTION_OK } ?? false
    }

    // MARK: - For the pool and the listener

    /// `isHealthy`, plus a non-blocking read so a server that closed the socket while we were
    /// idle (restart, shutdown) is noticed before the connection is handed out.
    func checkAlive() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        if waitReadable(handle, milliseconds: 0) {
            guard PQconsumeInput(handle) == 1 else { return false }
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// True when the connection can go back to a pool: healthy and outside any transaction.
    /// An abandoned transaction is rolled back first.
    func resetForReuse() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE:
            return true
        case PQTRANS_INTRANS, PQTRANS_INERROR:
            guard (try? execute(script: "ROLLBACK")) != nil else { return false }
            return PQtransactionStatus(handle) == PQTRANS_IDLE
        default:
            return false
        }
    }

    /// Waits up to `milliseconds` for notifications (after `LISTEN`); throws when the connection drops.
    func waitForNotifications(milliseconds: Int32) throws -> [PostgresNotification] {
        let handle = try requireHandle()
        var notifications = drainNotifications(handle)
        guard notifications.isEmpty else { return notifications }
        if waitReadable(handle, milliseconds: milliseconds) {
            guard PQconsumeInput(handle) == 1 else {
                throw PostgresError.connectionFailure(Self.lastErrorMessage(handle))
            }
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError.connectionFailure(Self.lastErrorMessage(handle))
        }
        notifications = drainNotifications(handle)
        return notifications
    }

    /// Frees the libpq connection now rather than at deinit; later calls fail as connection failures.
    func close() {
        if let handle {
            PQfinish(handle)
            self.handle = nil
        }
    }

    // MARK: - Private

    private func requireHandle() throws -> OpaquePointer {
        guard let handle else { throw PostgresError.connectionFailure("the connection is closed") }
        return handle
    }

    private func rows(from result: OpaquePointer?) throws -> PostgresRows {
        guard let result else {
            throw PostgresError.connectionFailure(handle.map(Self.lastErrorMessage) ?? "no result")
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(columnNames: [], rows: [], affectedRows: affectedRows(result))
        case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
            return readRows(result)
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR, PGRES_BAD_RESPONSE:
            throw error(from: result)
        default:
            // COPY and pipeline modes are not supported; the connection is left mid-protocol,
            // so the pool will discard it (its transaction status is not idle).
            throw PostgresError.server(sqlState: "0A000", message: "unsupported result: \(String(cString: PQresStatus(PQresultStatus(result))))")
        }
    }

    private func readRows(_ result: OpaquePointer) -> PostgresRows {
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        let names = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        let columns = PostgresColumns(names: names)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            let values: [String?] = (0..<columnCount).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        return PostgresRows(columnNames: names, rows: rows, affectedRows: affectedRows(result))
    }

    private func affectedRows(_ result: OpaquePointer) -> Int {
        Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    private func error(from result: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let connectionLost = handle.map { PQstatus($0) != CONNECTION_OK } ?? true
        guard let sqlState = field("C") else {
            // libpq's own errors ("server closed the connection unexpectedly") carry no SQLSTATE.
            let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            return connectionLost
                ? .connectionFailure(message)
                : .server(sqlState: "XX000", message: message)
        }
        return .server(sqlState: sqlState, message: field("M") ?? "unknown error", detail: field("D"))
    }

    private func drainNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
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

    private func waitReadable(_ handle: OpaquePointer, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    private static func lastErrorMessage(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Rewrites `conninfo` (key=value or URI) with another database, keeping everything else.
    public static func conninfo(_ conninfo: String, database: String) throws -> String {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            let message = error.map { String(cString: $0) } ?? "invalid connection string"
            PQfreemem(error)
            throw PostgresError.connectionFailure(message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer { PQconninfoFree(options) }
        var parts: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            let key = String(cString: keyword)
            if key != "dbname", let value = option.pointee.val {
                parts.append("\(key)=\(quoteConninfoValue(String(cString: value)))")
            }
            option += 1
        }
        parts.append("dbname=\(quoteConninfoValue(database))")
        return parts.joined(separator: " ")
    }

    /// Quotes a conninfo value only when needed: `'…'` with `\` and `'` escaped.
    public static func quoteConninfoValue(_ value: String) -> String {
        let plain = !value.isEmpty && !value.contains { $0 == " " || $0 == "'" || $0 == "\\" || $0.isWhitespace }
        if plain { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}

/// Calls `body` with a NULL-terminated C array of C strings.
private func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
    let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { body($0.baseAddress!) }
}
