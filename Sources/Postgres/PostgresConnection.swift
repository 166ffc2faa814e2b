import CPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection; the only type that touches libpq pointers. Every call blocks, so
/// use it only on threads you own (the pool and listener do), and from one thread at a time.
public final class PostgresConnection {
    private var handle: OpaquePointer?
    /// How long to wait for any reply before closing the connection as dead; nil waits forever.
    private var replyTimeout: Duration?
    /// In `PostgresSettingsScope.transaction`, what each transaction sets for itself; nil when
    /// the session holds the settings.
    private var transactionSettings: PostgresSessionSettings?
    /// False behind a transaction pooler: the session is not ours, so nothing is prepared on it.
    private var keepsSession = true
    /// The named statements this session prepared (`PostgresQuery.prepared`), by SQL text.
    private var preparedStatements: [String: String] = [:]
    private var statementsNamed = 0

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        close()
    }

    /// Connects (blocking), with the TCP bounds of `timeouts` (`connect_timeout=2`, keepalives,
    /// `tcp_user_timeout`) unless `conninfo` sets its own, so an unreachable server fails fast
    /// instead of hanging. Accepts `key=value` strings and URIs. `scope` says where the output
    /// formats and timeouts are set: on the session, or in every transaction (behind a
    /// transaction pooler, see `PostgresSettingsScope`).
    public static func connect(_ conninfo: String, timeouts: PostgresTimeouts = PostgresTimeouts(),
                               scope: PostgresSettingsScope = .session) throws -> PostgresConnection {
        // Later keywords win; `dbname` is expanded from `conninfo`, so it overrides our defaults.
        let defaults = timeouts.connectionKeywords + [("client_encoding", "UTF8")]
        let handle = withCStrings(defaults.map(\.0) + ["dbname"]) { keywords in
            withCStrings(defaults.map(\.1) + [conninfo]) { values in
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
        // Non-blocking sends, so that waiting on a server that stopped reading is bounded too.
        guard PQsetnonblocking(handle, 1) == 0 else {
            throw PostgresError.connectionFailure(lastErrorMessage(handle))
        }
        connection.replyTimeout = timeouts.replyTimeout
        // Pin the output formats the decoders expect, whatever the server's defaults are.
        let operatorOptions = (try? conninfoValues(conninfo))?.first { $0.key == "options" }?.value
        let timeoutSettings = timeouts.settings(operatorOptions: operatorOptions)
        switch scope {
        case .session:
            let settings = PostgresSessionSettings(settings: PostgresSessionSettings.formats + timeoutSettings)
            try connection.execute(script: settings.sessionScript)
        case .transaction:
            connection.keepsSession = false
            // The server's own values, read before any setting is in place (nothing to prefix yet).
            let names = PostgresSessionSettings.formats.map(\.name)
            let row = try connection.query(PostgresQuery(unsafeSQL: "SELECT " + names.enumerated().map {
                "current_setting(\(PostgresSessionSettings.literal($0.element))) AS s\($0.offset)"
            }.joined(separator: ", "))).first
            var current: [String: String] = [:]
            for (index, name) in names.enumerated() {
                current[name] = try row?.decode("s\(index)", as: String?.self)
            }
            let settings = PostgresSessionSettings.perTransaction(current: current, timeouts: timeoutSettings)
            connection.transactionSettings = settings.settings.isEmpty ? nil : settings
        }
        return connection
    }

    /// Starts a transaction: `BEGIN`, plus `SET LOCAL` of the connection's settings in the same
    /// simple query when they are set per transaction.
    public func begin(durability: CommitDurability = .flushed) throws {
        try execute(script: settings(with: durability)?.beginScript ?? "BEGIN")
    }

    /// The connection's per-transaction settings plus what `durability` sets; nil: none at all.
    private func settings(with durability: CommitDurability) -> PostgresSessionSettings? {
        guard let local = durability.localSetting else { return transactionSettings }
        var settings = transactionSettings ?? PostgresSessionSettings(settings: [])
        settings.settings.append(local)
        return settings
    }

    /// True outside any transaction, where a statement is a transaction of its own.
    private var isIdle: Bool {
        handle.map { PQtransactionStatus($0) == PQTRANS_IDLE } ?? false
    }

    /// Runs one statement (`PQsendQueryParams`): parameters and results in text format. Waits
    /// for the reply no longer than the connection's reply deadline.
    /// Outside a transaction, with settings per transaction, the settings go first in the same
    /// pipeline (one round trip, one implicit transaction).
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        try self.query(query, durability: .flushed)
    }

    /// `query` as the session's named prepared statement (`PostgresQuery.prepared`): for the
    /// statements a worker runs for every job.
    @discardableResult
    public func query(prepared query: PostgresQuery, durability: CommitDurability = .flushed) throws -> PostgresRows {
        try self.query(query.prepared, durability: durability)
    }

    /// `query`; when it runs outside a transaction (as a transaction of its own), its commit has
    /// `durability`: `.deferred` pipelines `set_config('synchronous_commit', 'off', true)` before
    /// it, in the same round trip and implicit transaction.
    @discardableResult
    public func query(_ query: PostgresQuery, durability: CommitDurability) throws -> PostgresRows {
        if isIdle, let settings = settings(with: durability) {
            return try runPipeline([settings.statementPrefix.prepared, query])[1]
        }
        // Preparing and running take two commands: one round trip in a pipeline.
        if query.reusesPlan, keepsSession, preparedStatements[query.sql] == nil { return try runPipeline([query])[0] }
        let statement = self.statement(for: query)
        let handle = try requireHandle()
        guard send(query, as: statement, on: handle) else { throw sendFailure(handle) }
        do {
            return try rows(from: awaitResult(handle))
        } catch {
            forgetIfStale(query, after: error)
            throw error
        }
    }

    /// A prepared statement whose result columns changed under it (a migration altered its
    /// table or function) fails with 0A000 on every run: the next run prepares it afresh.
    private func forgetIfStale(_ query: PostgresQuery, after error: any Error) {
        guard query.reusesPlan, (error as? PostgresError)?.sqlState == "0A000" else { return }
        preparedStatements[query.sql] = nil
    }

    /// How a query goes out: unnamed, or as the session's named statement for its text
    /// (`prepare`: not prepared yet, so its Parse goes first).
    private enum Statement {
        case unnamed
        case named(String, prepare: Bool)
    }

    /// `pending`: statements being prepared earlier in the same pipeline, by SQL text.
    private func statement(for query: PostgresQuery, pending: [String: String] = [:]) -> Statement {
        guard query.reusesPlan, keepsSession else { return .unnamed }
        if let name = preparedStatements[query.sql] ?? pending[query.sql] { return .named(name, prepare: false) }
        statementsNamed += 1
        return .named("openpush_\(statementsNamed)", prepare: true)
    }

    /// Queues the query's execution (binds as text, results as text); false if libpq refused.
    private func send(_ query: PostgresQuery, as statement: Statement, on handle: OpaquePointer) -> Bool {
        let values: [UnsafeMutablePointer<CChar>?] = query.binds.map { bind in bind.text.map { strdup($0) } }
        defer { values.forEach { free($0) } }
        return values.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
            switch statement {
            case .unnamed:
                PQsendQueryParams(handle, query.sql, Int32(buffer.count), nil, buffer.baseAddress, nil, nil, 0)
            case .named(let name, _):
                PQsendQueryPrepared(handle, name, Int32(buffer.count), buffer.baseAddress, nil, nil, 0)
            }
        } == 1
    }

    /// Runs `queries` in one round trip (libpq's pipeline mode) and returns each one's rows, in
    /// order. Outside a transaction they run as one implicit transaction; the first statement
    /// that fails aborts the rest, and its error is thrown once every reply has been read.
    public func pipeline(_ queries: [PostgresQuery]) throws -> [PostgresRows] {
        if let settings = transactionSettings, isIdle, !queries.isEmpty {
            return Array(try runPipeline([settings.statementPrefix.prepared] + queries).dropFirst())
        }
        return try runPipeline(queries)
    }

    private func runPipeline(_ queries: [PostgresQuery]) throws -> [PostgresRows] {
        let handle = try requireHandle()
        guard PQenterPipelineMode(handle) == 1 else { throw sendFailure(handle) }
        // Each command's results come in order: a Parse's (a statement being prepared), then
        // every query's.
        var preparing: [String: String] = [:]
        var replies: [(query: PostgresQuery, preparedAs: String?)] = []
        for query in queries {
            let statement = self.statement(for: query, pending: preparing)
            if case .named(let name, prepare: true) = statement {
                guard PQsendPrepare(handle, name, query.sql, Int32(query.binds.count), nil) == 1 else {
                    throw sendFailure(handle)
                }
                preparing[query.sql] = name
                replies.append((query, name))
            }
            guard send(query, as: statement, on: handle) else { throw sendFailure(handle) }
            replies.append((query, nil))
        }
        guard PQpipelineSync(handle) == 1 else { throw sendFailure(handle) }
        let deadline = replyTimeout.map { ContinuousClock.now + $0 }
        try flush(handle, until: deadline)
        var results: [PostgresRows] = []
        var failure: (any Error)?
        for reply in replies {
            // Each command's results end with a NULL.
            var last: OpaquePointer?
            while let result = try nextResult(handle, until: deadline) {
                PQclear(last)
                last = result
            }
            if let last, PQresultStatus(last) == PGRES_PIPELINE_ABORTED {
                PQclear(last)
                continue
            }
            do {
                let rows = try rows(from: last)
                // Known only once the server has it: an aborted or failed Parse prepared nothing.
                if let name = reply.preparedAs {
                    preparedStatements[reply.query.sql] = name
                } else {
                    results.append(rows)
                }
            } catch {
                forgetIfStale(reply.query, after: error)
                if failure == nil { failure = error }
            }
        }
        guard let sync = try nextResult(handle, until: deadline), PQresultStatus(sync) == PGRES_PIPELINE_SYNC else {
            close()
            throw PostgresError.connectionFailure("a pipeline ended without its sync; the connection was closed")
        }
        PQclear(sync)
        guard PQexitPipelineMode(handle) == 1 else { throw sendFailure(handle) }
        if let failure { throw failure }
        return results
    }

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

    /// Runs a script of several statements in one simple query (migrations). Returns nothing:
    /// only the last statement's result is kept, as with `PQexec`. Runs as written: with
    /// settings per transaction, a script outside `begin()` gets none of them.
    public func execute(script: String) throws {
        let handle = try requireHandle()
        guard PQsendQuery(handle, script) == 1 else { throw sendFailure(handle) }
        _ = try rows(from: awaitResult(handle))
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

    /// The value libpq uses for a connection keyword (`tcp_user_timeout`, `keepalives_idle`, …).
    func connectionOption(_ keyword: String) -> String? {
        guard let handle, let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    /// Runs `body` with no client-side reply deadline (migrations may run for minutes).
    func withoutReplyDeadline<T>(_ body: () throws -> T) rethrows -> T {
        let saved = replyTimeout
        replyTimeout = nil
        defer { replyTimeout = saved }
        return try body()
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

    /// Sends what libpq has queued and collects the command's results, as `PQexec` would (the
    /// last result wins), but never waits past the reply deadline: then the connection is closed,
    /// since its protocol state is unknown, and the caller gets a connection failure.
    private func awaitResult(_ handle: OpaquePointer) throws -> OpaquePointer? {
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
    private func flush(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant?) throws {
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
    private func nextResult(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant?) throws -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            _ = try waitUntil(deadline, handle, events: Int16(POLLIN))
            guard PQconsumeInput(handle) == 1 else { throw connectionLost(handle) }
        }
        return PQgetResult(handle)
    }

    /// Waits until libpq may take more to send, reading what the server sent meanwhile.
    private func waitWritable(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant?) throws {
        if try waitUntil(deadline, handle, events: Int16(POLLIN | POLLOUT)) & Int16(POLLIN) != 0 {
            guard PQconsumeInput(handle) == 1 else { throw connectionLost(handle) }
        }
        guard PQflush(handle) >= 0 else { throw connectionLost(handle) }
    }

    /// Polls the socket for `events` until `deadline`; past it, closes the connection and throws.
    private func waitUntil(_ deadline: ContinuousClock.Instant?, _ handle: OpaquePointer, events: Int16) throws -> Int16 {
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

    private func replyTimedOut() -> PostgresError {
        let waited = replyTimeout.map { " within \(PostgresTimeouts.milliseconds($0)) ms" } ?? ""
        close()
        return .connectionFailure("no reply from the server\(waited); the connection was closed")
    }

    private func connectionLost(_ handle: OpaquePointer) -> PostgresError {
        .connectionFailure(Self.lastErrorMessage(handle))
    }

    /// libpq refused to send: a lost connection, or a misuse such as a command still in progress.
    private func sendFailure(_ handle: OpaquePointer) -> PostgresError {
        PQstatus(handle) == CONNECTION_OK
            ? .server(sqlState: "XX000", message: Self.lastErrorMessage(handle))
            : connectionLost(handle)
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
            // COPY outside `copy(into:rows:)` is not supported; the connection
            // is left mid-protocol, so the pool will discard it (its transaction status is not idle).
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
                guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return nil }
                // libpq has the length: no strlen over each value (a job's claim holds 70 KB of tokens).
                let bytes = UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result, row, column)))
                if let same = Self.repeatedValue(bytes, above: row, column: column, in: result, rows: rows) { return same }
                return String(decoding: bytes, as: UTF8.self)
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        return PostgresRows(columnNames: names, rows: rows, affectedRows: affectedRows(result))
    }

    /// The row above's string when this value repeats it (a job's rows all carry its app's id),
    /// so the row shares it: no allocation, and comparing the two later is a pointer check.
    /// Only for values too long to be stored inline in a `String` (more than 15 bytes).
    private static func repeatedValue(_ bytes: UnsafeRawBufferPointer, above row: Int32, column: Int32, in result: OpaquePointer,
                                      rows: [PostgresRow]) -> String? {
        guard row > 0, bytes.count > 15, PQgetisnull(result, row - 1, column) == 0,
              Int(PQgetlength(result, row - 1, column)) == bytes.count,
              let above = PQgetvalue(result, row - 1, column), memcmp(above, bytes.baseAddress!, bytes.count) == 0
        else { return nil }
        return rows[Int(row) - 1].values[Int(column)]
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
        try Self.conninfo(conninfo, replacing: ["dbname": database])
    }

    /// Rewrites `conninfo` (key=value or URI) with the given keywords replaced or added, and
    /// those in `removing` left out.
    public static func conninfo(_ conninfo: String, replacing replacements: [String: String],
                                removing removed: Set<String> = []) throws -> String {
        var parts: [String] = []
        for (key, value) in try conninfoValues(conninfo) where replacements[key] == nil && !removed.contains(key) {
            parts.append("\(key)=\(quoteConninfoValue(value))")
        }
        for (key, value) in replacements.sorted(by: { $0.key < $1.key }) {
            parts.append("\(key)=\(quoteConninfoValue(value))")
        }
        return parts.joined(separator: " ")
    }

    /// The keywords `conninfo` (key=value or URI) sets, in libpq's order; unset ones are left out.
    public static func conninfoValues(_ conninfo: String) throws -> [(key: String, value: String)] {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            let message = error.map { String(cString: $0) } ?? "invalid connection string"
            PQfreemem(error)
            throw PostgresError.connectionFailure(message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer { PQconninfoFree(options) }
        var values: [(key: String, value: String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                values.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        return values
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
