import CPostgres
import Foundation

/// Several queries in one round trip (libpq's pipeline mode).
extension PostgresConnection {
    /// Runs `queries` in one round trip (libpq's pipeline mode) and returns each one's rows, in
    /// order. Outside a transaction they run as one implicit transaction; the first statement
    /// that fails aborts the rest, and its error is thrown once every reply has been read.
    public func pipeline(_ queries: [PostgresQuery]) throws -> [PostgresRows] {
        if let settings = transactionSettings, isIdle, !queries.isEmpty {
            return Array(try runPipeline([settings.statementPrefix.prepared] + queries).dropFirst())
        }
        return try runPipeline(queries)
    }

    func runPipeline(_ queries: [PostgresQuery]) throws -> [PostgresRows] {
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
        traffic.record(statements: queries.count)
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
}
