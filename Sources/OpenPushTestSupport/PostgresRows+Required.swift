package import Postgres

package struct MissingRow: Error, CustomStringConvertible {
    package var description: String { "the query returned no row" }
}

extension PostgresRows {
    /// The first row, or a thrown error: `[0]` on an empty result traps and takes the whole
    /// test process down with it, where a throw fails only the test that asked.
    package func firstRow() throws -> PostgresRow {
        guard let row = first else { throw MissingRow() }
        return row
    }
}
