import Foundation
import OpenPushTestSupport
import Testing
@testable import Postgres

@Suite struct PostgresTimestampTests {
    @Test func formatsISO8601WithMicroseconds() {
        let date = Date(timeIntervalSince1970: 1_796_021_703.123456)
        #expect(PostgresTimestamp.format(date) == "2026-11-30T06:55:03.123456Z")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500000Z")
    }

    @Test(arguments: [
        ("2026-11-30 06:55:03.123456+00", 1_796_021_703.123456),
        ("2026-11-30 06:55:03+00", 1_796_021_703),
        ("2026-11-30 08:55:03.5+02", 1_796_021_703.5),
        ("2026-11-30 12:25:03+05:30", 1_796_021_703),
        ("2026-11-30T06:55:03.123456Z", 1_796_021_703.123456),
        ("1970-01-01 00:00:00+00", 0),
    ])
    func parsesPostgresOutput(text: String, seconds: Double) throws {
        let date = try #require(PostgresTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test func rejectsGarbage() {
        #expect(PostgresTimestamp.parse("yesterday") == nil)
        #expect(PostgresTimestamp.parse("2026-13-01 00:00:00+00") == nil)
        #expect(PostgresTimestamp.parse("2026-11-30 06:55:03+00 extra") == nil)
    }
}

@Suite struct PostgresRoundTripTests {
    /// Sends a value as a parameter, casts it server-side, and decodes the text PostgreSQL returns.
    func roundTrip<T: PostgresEncodable & PostgresDecodable>(_ value: T, as type: String, on pool: PostgresPool) async throws -> T {
        let rows = try await pool.query("SELECT \(value)::\(PostgresQuery(unsafeSQL: type)) AS value")
        return try rows[0].decode("value", as: T.self)
    }

    /// A long value repeating the row above's is shared with it (one string, not one a row),
    /// and every row still reads its own value: repeats, changes, NULLs and short values alike.
    @Test func repeatedValuesReadTheSameAndShareTheRowAbove() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let rows = try await pool.query("""
            SELECT v.app, v.short FROM (VALUES (1, 'app_01hq8bzzzzzzzzzzzzzzzzzzzz', 'ios'), (2, 'app_01hq8bzzzzzzzzzzzzzzzzzzzz', 'ios'),
                (3, 'app_01hq8bzzzzzzzzzzzzzzzzzzzy', 'ios'), (4, NULL, NULL), (5, 'app_01hq8bzzzzzzzzzzzzzzzzzzzy', 'mac'),
                (6, 'app_01hq8bzzzzzzzzzzzzzzzzzzzy', 'mac'), (7, 'app_01hq8bzzzzzzzzzzzzzzzzzzzy-longer', 'mac')) AS v(n, app, short)
            ORDER BY v.n
            """)
        let apps = try rows.map { try $0.decode("app", as: String?.self) }
        #expect(apps == ["app_01hq8bzzzzzzzzzzzzzzzzzzzz", "app_01hq8bzzzzzzzzzzzzzzzzzzzz", "app_01hq8bzzzzzzzzzzzzzzzzzzzy", nil,
                         "app_01hq8bzzzzzzzzzzzzzzzzzzzy", "app_01hq8bzzzzzzzzzzzzzzzzzzzy", "app_01hq8bzzzzzzzzzzzzzzzzzzzy-longer"])
        #expect(try rows.map { try $0.decode("short", as: String?.self) } == ["ios", "ios", "ios", nil, "mac", "mac", "mac"])
        func storage(_ text: String?) -> UnsafeRawPointer? {
            var text = text
            return text?.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        #expect(storage(apps[0]) == storage(apps[1]))
        #expect(storage(apps[4]) == storage(apps[5]))
        #expect(storage(apps[1]) != storage(apps[2]))
    }

    @Test func everyTypeRoundTrips() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)

        for text in ["", "hello", "ünïcödé ✓ 🚀", "'; DROP TABLE x; --", "line\nbreak\\"] {
            #expect(try await roundTrip(text, as: "text", on: pool) == text)
        }
        for number in [0, 1, -1, Int.max, Int.min] {
            #expect(try await roundTrip(number, as: "int8", on: pool) == number)
        }
        #expect(try await roundTrip(Int64.min, as: "int8", on: pool) == Int64.min)
        #expect(try await roundTrip(Int32.max, as: "int4", on: pool) == Int32.max)
        for double in [0.1, -2.5e300, 1.0 / 3.0, .infinity, -.infinity] {
            #expect(try await roundTrip(double, as: "float8", on: pool) == double)
        }
        #expect(try await roundTrip(Double.nan, as: "float8", on: pool).isNaN)
        #expect(try await roundTrip(true, as: "bool", on: pool) == true)
        #expect(try await roundTrip(false, as: "bool", on: pool) == false)
        let uuid = UUID()
        #expect(try await roundTrip(uuid, as: "uuid", on: pool) == uuid)
        for date in [Date(timeIntervalSince1970: 1_796_021_703.123456), Date(timeIntervalSince1970: -86_400 * 365.25 * 100), Date()] {
            let decoded = try await roundTrip(date, as: "timestamptz", on: pool)
            #expect(abs(decoded.timeIntervalSince(date)) < 1e-6)
        }
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF]
        #expect(try await roundTrip(bytes, as: "bytea", on: pool) == bytes)
        #expect(try await roundTrip([UInt8](), as: "bytea", on: pool) == [])
        #expect(try await roundTrip(Data(bytes), as: "bytea", on: pool) == Data(bytes))

        let strings: [String?] = ["a", "with \"quote\"", #"back\slash"#, "a,b", "{x}", nil, "NULL", " spaced "]
        #expect(try await roundTrip(strings, as: "text[]", on: pool) == strings)
        #expect(try await roundTrip([3, 1, 2], as: "int8[]", on: pool) == [3, 1, 2])

        #expect(try await roundTrip(Optional<String>.none, as: "text", on: pool) == nil)
        #expect(try await roundTrip(Optional(5), as: "int4", on: pool) == 5)
    }

    @Test func arrayParameterWorksWithAny() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let ids = [2, 4]
        let rows = try await pool.query("SELECT n FROM generate_series(1, 5) AS n WHERE n = ANY(\(ids)) ORDER BY n")
        #expect(try rows.map { try $0.decode("n", as: Int.self) } == [2, 4])
    }

    @Test func decodingWrongTypesThrows() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let row = try #require(try await pool.query("SELECT 'abc'::text AS word, NULL::int AS nothing, 1.5::float8 AS real").first)

        #expect(throws: PostgresError.self) { try row.decode("word", as: Int.self) }
        #expect(throws: PostgresError.self) { try row.decode("word", as: UUID.self) }
        #expect(throws: PostgresError.self) { try row.decode("word", as: Date.self) }
        #expect(throws: PostgresError.self) { try row.decode("word", as: [UInt8].self) }
        #expect(throws: PostgresError.self) { try row.decode("real", as: Int.self) }
        #expect(throws: PostgresError.self) { try row.decode("nothing", as: Int.self) }
        #expect(throws: PostgresError.self) { try row.decode("missing", as: String.self) }
        #expect(try row.decode("nothing", as: Int?.self) == nil)
        #expect(row.isNull("nothing"))
        #expect(row["word"] == "abc")

        do {
            _ = try row.decode("word", as: Bool.self)
            Issue.record("decoding text as Bool should fail")
        } catch let error as PostgresError {
            #expect(error.kind == .decoding(column: "word", message: error.message))
        }
    }

    @Test func serverErrorsCarrySQLState() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        try await pool.query("CREATE TABLE things (id int PRIMARY KEY)")
        let inserted = try await pool.query("INSERT INTO things VALUES (1), (2)")
        #expect(inserted.affectedRows == 2)
        do {
            try await pool.query("INSERT INTO things VALUES (\(1))")
            Issue.record("duplicate insert should fail")
        } catch let error as PostgresError {
            #expect(error.sqlState == "23505")
            #expect(error.isUniqueViolation)
            #expect(!error.isConnectionFailure)
        }
        // The connection survived the error.
        #expect(try await pool.query("SELECT count(*) AS n FROM things").firstRow().decode("n", as: Int.self) == 2)
    }
}
