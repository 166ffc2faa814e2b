/// Every failure of this module. `isConnectionFailure` is what callers map to HTTP 503.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server is unreachable or the connection was lost.
        case connectionFailure
        /// The server rejected a statement.
        case server(sqlState: String, message: String, detail: String?)
        /// A column could not be turned into the requested Swift type.
        case decoding(column: String, message: String)
        case poolClosed
        case poolTimeout
    }

    public var kind: Kind
    public var sqlState: String?
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
        if case .server(let sqlState, _, _) = kind {
            self.sqlState = sqlState
        } else {
            self.sqlState = nil
        }
    }

    public static func connectionFailure(_ message: String) -> PostgresError {
        PostgresError(kind: .connectionFailure, message: message)
    }

    public static func server(sqlState: String, message: String, detail: String? = nil) -> PostgresError {
        PostgresError(kind: .server(sqlState: sqlState, message: message, detail: detail), message: message)
    }

    public static func decoding(column: String, message: String) -> PostgresError {
        PostgresError(kind: .decoding(column: column, message: message), message: message)
    }

    public static let poolClosed = PostgresError(kind: .poolClosed, message: "the connection pool is closed")
    public static let poolTimeout = PostgresError(kind: .poolTimeout, message: "timed out waiting for a pooled connection")

    /// Lost or refused connections, plus the SQLSTATEs a server sends when it goes away:
    /// class 08 (connection exception) and 57P01–57P03 (admin/crash shutdown, cannot connect now).
    public var isConnectionFailure: Bool {
        if kind == .connectionFailure { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// 57014 / 55P03: a statement ran past `statement_timeout` (or was cancelled), or waited past
    /// `lock_timeout` for a lock. The query may be fine; the database is too slow or too busy now.
    public var isTimeout: Bool { sqlState == "57014" || sqlState == "55P03" }

    /// 23505: a unique constraint rejected the row.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// 40001 / 40P01: the transaction may succeed when retried.
    public var isRetryableTransactionFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// Failures that mean "the database is not there right now" rather than "this query is wrong":
    /// lost or unreachable, no connection free in time, or too slow to answer within the timeouts.
    public var isUnavailable: Bool {
        isConnectionFailure || kind == .poolTimeout || isTimeout
    }

    /// A failure that says nothing about the statements: the same transaction may well commit
    /// when tried again (the database unavailable for now, a deadlock or serialization failure).
    public var isPassing: Bool { isUnavailable || isRetryableTransactionFailure }

    public var description: String {
        switch kind {
        case .connectionFailure:
            "PostgreSQL connection failure: \(message)"
        // `message`, not the server's own: a caller may have said where it came from (a
        // migration's name, a function file's).
        case .server(let sqlState, _, let detail):
            "PostgreSQL error \(sqlState): \(message)" + (detail.map { " (\($0))" } ?? "")
        case .decoding(let column, let message):
            "cannot decode column \"\(column)\": \(message)"
        case .poolClosed, .poolTimeout:
            message
        }
    }
}
