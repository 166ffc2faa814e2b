import CPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection; the only type that touches libpq pointers. Every call blocks, so
/// use it only on threads you own (the pool and listener do), and from one thread at a time.
public final class PostgresConnection {
    private(set) var handle: OpaquePointer?
    /// How long to wait for any reply before closing the connection as dead; nil waits forever.
    private(set) var replyTimeout: Duration?
    /// In `PostgresSettingsScope.transaction`, what each transaction sets for itself; nil when
    /// the session holds the settings.
    private(set) var transactionSettings: PostgresSessionSettings?
    /// False behind a transaction pooler: the session is not ours, so nothing is prepared on it.
    private(set) var keepsSession = true
    /// The named statements this session prepared (`PostgresQuery.prepared`), by SQL text.
    var preparedStatements: [String: String] = [:]
    private(set) var statementsNamed = 0
    /// Everything sent on this connection (`PostgresPool.traffic` sums it over the pool's callers).
    public internal(set) var traffic = PostgresTraffic()

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
    var isIdle: Bool {
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
        traffic.record()
        do {
            return try rows(from: awaitResult(handle))
        } catch {
            forgetIfStale(query, after: error)
            throw error
        }
    }

    /// A prepared statement whose result columns changed under it (a migration altered its
    /// table or function) fails with 0A000 on every run: the next run prepares it afresh.
    func forgetIfStale(_ query: PostgresQuery, after error: any Error) {
        guard query.reusesPlan, (error as? PostgresError)?.sqlState == "0A000" else { return }
        preparedStatements[query.sql] = nil
    }

    /// How a query goes out: unnamed, or as the session's named statement for its text
    /// (`prepare`: not prepared yet, so its Parse goes first).
    enum Statement {
        case unnamed
        case named(String, prepare: Bool)
    }

    /// `pending`: statements being prepared earlier in the same pipeline, by SQL text.
    func statement(for query: PostgresQuery, pending: [String: String] = [:]) -> Statement {
        guard query.reusesPlan, keepsSession else { return .unnamed }
        if let name = preparedStatements[query.sql] ?? pending[query.sql] { return .named(name, prepare: false) }
        statementsNamed += 1
        return .named("openpush_\(statementsNamed)", prepare: true)
    }

    /// Queues the query's execution (binds as text, results as text); false if libpq refused.
    func send(_ query: PostgresQuery, as statement: Statement, on handle: OpaquePointer) -> Bool {
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

    /// Runs a script of several statements in one simple query (migrations). Returns nothing:
    /// only the last statement's result is kept, as with `PQexec`. Runs as written: with
    /// settings per transaction, a script outside `begin()` gets none of them.
    public func execute(script: String) throws {
        let handle = try requireHandle()
        guard PQsendQuery(handle, script) == 1 else { throw sendFailure(handle) }
        traffic.record()
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

    /// The handle, or a connection failure once closed.
    func requireHandle() throws -> OpaquePointer {
        guard let handle else { throw PostgresError.connectionFailure("the connection is closed") }
        return handle
    }
}

/// Calls `body` with a NULL-terminated C array of C strings.
private func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
    let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { body($0.baseAddress!) }
}
