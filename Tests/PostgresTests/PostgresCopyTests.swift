import OpenPushTestSupport
import Testing
@testable import Postgres

@Suite struct PostgresCopyTests {
    private static let table: PostgresQuery = """
        CREATE TABLE copied (name text, note text, n int4, big int8, at timestamptz NOT NULL)
        """

    @Test func binaryRowsArriveAsWritten() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        try await pool.query(Self.table)
        var rows = PostgresCopyRows(columns: 5)
        for (index, name) in ["plain", "ünïcödé ✓ 🚀", "'; DROP TABLE copied; --", "tab\tand\nnewline\\"].enumerated() {
            rows.startRow()
            rows.append(name)
            rows.append(index.isMultiple(of: 2) ? nil : "note \(index)" as String?)
            rows.append(index == 3 ? nil : Int32(-index) as Int32?)
            rows.append(Int64.max - Int64(index))
            // 2026-11-30 06:55:03.123456 UTC, plus `index` seconds.
            rows.append(timestampSince2000: 1_796_021_703_123_456 - PostgresCopyRows.postgresEpochMicroseconds + Int64(index) * 1_000_000)
        }
        let copied = try await pool.withConnection { [rows] in try $0.copy(into: "copied (name, note, n, big, at)", rows: rows) }
        #expect(copied == 4)

        let read = try await pool.query("""
            SELECT name, note, n, big, extract(epoch FROM at)::float8 AS at FROM copied ORDER BY big DESC
            """)
        #expect(try read.map { try $0.decode("name", as: String.self) }
            == ["plain", "ünïcödé ✓ 🚀", "'; DROP TABLE copied; --", "tab\tand\nnewline\\"])
        #expect(try read.map { try $0.decode("note", as: String?.self) } == [nil, "note 1", nil, "note 3"])
        #expect(try read.map { try $0.decode("n", as: Int?.self) } == [0, -1, -2, nil])
        #expect(try read[0].decode("big", as: Int64.self) == .max)
        #expect(abs(try read[1].decode("at", as: Double.self) - 1_796_021_704.123456) < 1e-6)
    }

    @Test func largeCopiesGoOutInChunks() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        try await pool.query(Self.table)
        var rows = PostgresCopyRows(columns: 5)
        let long = String(repeating: "x", count: 500)
        for index in 0..<5000 {
            rows.startRow()
            rows.append(long)
            rows.append(nil as String?)
            rows.append(Int32(index))
            rows.append(Int64(index))
            rows.append(timestampSince2000: 0)
        }
        let copied = try await pool.withConnection { [rows] in try $0.copy(into: "copied (name, note, n, big, at)", rows: rows) }
        #expect(copied == 5000)
        let sum = try await pool.query("SELECT sum(n)::int8 AS s, count(DISTINCT big)::int AS ids FROM copied").firstRow()
        #expect(try sum.decode("s", as: Int.self) == 4999 * 5000 / 2)
        #expect(try sum.decode("ids", as: Int.self) == 5000)
    }

    @Test func aRefusedRowFailsTheCopyAndLeavesTheConnectionUsable() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        try await pool.query(Self.table)
        var rows = PostgresCopyRows(columns: 5)
        rows.startRow()
        for _ in 0..<4 { rows.appendNull() }
        rows.appendNull()  // `at` is NOT NULL
        let refused = await #expect(throws: PostgresError.self) {
            try await pool.withConnection { [rows] in try $0.copy(into: "copied (name, note, n, big, at)", rows: rows) }
        }
        #expect(refused?.sqlState == "23502")
        await #expect(throws: PostgresError.self) {
            try await pool.withConnection { [rows] in try $0.copy(into: "no_such_table (a)", rows: rows) }
        }
        #expect(try await pool.query("SELECT count(*)::int AS n FROM copied").firstRow().decode("n", as: Int.self) == 0)
    }
}
