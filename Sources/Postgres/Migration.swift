import Foundation

/// One schema change, from a file named `NNNN_name.sql`.
///
/// A migration that rewrites a large table puts its backfill after a line that reads
/// `-- openpush:backfill`: one statement that changes a bounded batch of rows (`LIMIT`) and
/// changes none once all are done. The migrator commits the part above the line, then runs the
/// backfill again and again, each batch in a transaction of its own, so no lock is held for the
/// whole table's rewrite, and a stopped upgrade resumes at the next batch.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    static let backfillMarker = "-- openpush:backfill"

    /// The statements run once, in the migration's own transaction.
    var body: String { parts.body }

    /// The batched backfill, if the migration has one.
    var backfill: String? { parts.backfill }

    private var parts: (body: String, backfill: String?) {
        var lines = sql.split(separator: "\n", omittingEmptySubsequences: false)
        guard let marker = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == Self.backfillMarker }) else {
            return (sql, nil)
        }
        let backfill = lines[(marker + 1)...].joined(separator: "\n")
        lines.removeSubrange(marker...)
        let trimmed = backfill.trimmingCharacters(in: .whitespacesAndNewlines)
        return (lines.joined(separator: "\n"), trimmed.isEmpty ? nil : trimmed)
    }
}

/// A migration set that cannot be loaded or applied.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
