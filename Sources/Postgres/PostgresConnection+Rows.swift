import CPostgres
import Foundation

/// Results into rows, and the server's errors into `PostgresError`.
extension PostgresConnection {
    func rows(from result: OpaquePointer?) throws -> PostgresRows {
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

    func readRows(_ result: OpaquePointer) -> PostgresRows {
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
    static func repeatedValue(_ bytes: UnsafeRawBufferPointer, above row: Int32, column: Int32, in result: OpaquePointer,
                                      rows: [PostgresRow]) -> String? {
        guard row > 0, bytes.count > 15, PQgetisnull(result, row - 1, column) == 0,
              Int(PQgetlength(result, row - 1, column)) == bytes.count,
              let above = PQgetvalue(result, row - 1, column), memcmp(above, bytes.baseAddress!, bytes.count) == 0
        else { return nil }
        return rows[Int(row) - 1].values[Int(column)]
    }

    func affectedRows(_ result: OpaquePointer) -> Int {
        Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    func error(from result: OpaquePointer) -> PostgresError {
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
}
