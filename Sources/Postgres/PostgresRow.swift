/// Column names of one result, shared by all its rows.
@usableFromInline
struct PostgresColumns: Sendable {
    @usableFromInline let names: [String]
    private let indexByName: [String: Int]

    init(names: [String]) {
        self.names = names
        // The first of duplicate names wins, as in most drivers.
        self.indexByName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    @usableFromInline
    func index(of name: String) -> Int? {
        indexByName[name]
    }
}

/// One row of a result, in PostgreSQL's text format.
public struct PostgresRow: Sendable {
    @usableFromInline let columns: PostgresColumns
    @usableFromInline let values: [String?]

    public var columnNames: [String] { columns.names }

    /// Decodes a column; NULL decodes only into an `Optional`. Inlinable so callers get it
    /// specialized for each type: decoding runs per column of thousands of rows per job.
    @inlinable
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.index(of: column) else {
            throw PostgresError.decoding(column: column, message: "no such column; the result has \(columns.names)")
        }
        do {
            return try decodePostgresValue(values[index], as: T.self)
        } catch let error as PostgresError {
            if case .decoding(_, let message) = error.kind {
                throw PostgresError.decoding(column: column, message: message)
            }
            throw error
        } catch {
            throw PostgresError.decoding(column: column, message: "\(error)")
        }
    }

    /// Decodes the column at a position looked up once for the whole result
    /// (`PostgresRows.column(_:)`): no name lookup per row.
    @inlinable
    public func decode<T: PostgresDecodable>(_ column: PostgresColumn, as type: T.Type = T.self) throws -> T {
        do {
            return try decodePostgresValue(values[column.index], as: T.self)
        } catch let error as PostgresError {
            if case .decoding(_, let message) = error.kind {
                throw PostgresError.decoding(column: column.name, message: message)
            }
            throw error
        } catch {
            throw PostgresError.decoding(column: column.name, message: "\(error)")
        }
    }

    /// True for NULL, and for a column the result does not have.
    public func isNull(_ column: String) -> Bool {
        self[column] == nil
    }

    /// The raw text of a column; nil for NULL or a missing column.
    public subscript(column: String) -> String? {
        columns.index(of: column).flatMap { values[$0] }
    }
}

/// A column's position in a result, for decoding many rows without a lookup by name each.
public struct PostgresColumn: Sendable {
    @usableFromInline let index: Int
    @usableFromInline let name: String
}

/// The rows of one statement plus its affected-row count (`INSERT`/`UPDATE`/`DELETE`).
public struct PostgresRows: Sendable, RandomAccessCollection {
    let rows: [PostgresRow]
    public var affectedRows: Int
    public let columnNames: [String]

    init(columnNames: [String], rows: [PostgresRow], affectedRows: Int) {
        self.columnNames = columnNames
        self.rows = rows
        self.affectedRows = affectedRows
    }

    /// The position of `name` (the first of duplicates), for `PostgresRow.decode(_:as:)`.
    public func column(_ name: String) throws -> PostgresColumn {
        guard let index = columnNames.firstIndex(of: name) else {
            throw PostgresError.decoding(column: name, message: "no such column; the result has \(columnNames)")
        }
        return PostgresColumn(index: index, name: name)
    }

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }
}
