import Testing
@testable import Postgres

@Suite struct PostgresQueryTests {
    @Test func interpolatedValuesBecomePlaceholdersAndBinds() {
        let evil = "'; DROP TABLE x; --"
        let id = 42
        let query: PostgresQuery = "SELECT * FROM devices WHERE token = \(evil) AND id = \(id)"
        #expect(query.sql == "SELECT * FROM devices WHERE token = $1 AND id = $2")
        #expect(query.binds == [PostgresBind(text: evil), PostgresBind(text: "42")])
        #expect(!query.sql.contains("DROP"))
        #expect(!query.description.contains("DROP"))
    }

    @Test func nilBindsAsNull() {
        let missing: String? = nil
        let present: Int? = 7
        let query: PostgresQuery = "VALUES (\(missing), \(present))"
        #expect(query.sql == "VALUES ($1, $2)")
        #expect(query.binds == [.null, PostgresBind(text: "7")])
    }

    @Test func fragmentsComposeWithRenumbering() {
        let filter: PostgresQuery = "app_id = \("app") AND created_at > \(5)"
        let query: PostgresQuery = "SELECT 1 WHERE kind = \("k") AND \(filter) LIMIT \(10)"
        #expect(query.sql == "SELECT 1 WHERE kind = $1 AND app_id = $2 AND created_at > $3 LIMIT $4")
        #expect(query.binds.map(\.text) == ["k", "app", "5", "10"])

        let joined = [PostgresQuery]([ "(\(1), \("a"))", "(\(2), \("b"))" ]).joined(separator: ", ")
        #expect(joined.sql == "($1, $2), ($3, $4)")
        #expect(("SELECT \(1), " as PostgresQuery) + "\(2)" == PostgresQuery(unsafeSQL: "SELECT $1, $2", binds: [PostgresBind(text: "1"), PostgresBind(text: "2")]))
    }

    @Test func renumberingLeavesQuotedTextAlone() {
        let fragment = PostgresQuery(
            unsafeSQL: #"x = $1 AND y = '$1' AND "$1" = 1 AND z = $$ $1 $$ AND w = $tag$ $1 $tag$ -- $1"# + "\n/* $1 */ $2",
            binds: [PostgresBind(text: "a"), PostgresBind(text: "b")]
        )
        let query: PostgresQuery = "SELECT \(0) WHERE \(fragment)"
        #expect(query.sql == #"SELECT $1 WHERE x = $2 AND y = '$1' AND "$1" = 1 AND z = $$ $1 $$ AND w = $tag$ $1 $tag$ -- $1"# + "\n/* $1 */ $3")
        #expect(query.binds.count == 3)
    }

    @Test func arraysBindAsOneQuotedLiteral() {
        let values: [String?] = ["plain", "with \"quote\"", #"back\slash"#, "a,b", "{brace}", nil, "NULL", ""]
        let query: PostgresQuery = "SELECT \(values)"
        #expect(query.sql == "SELECT $1")
        #expect(query.binds == [PostgresBind(text: #"{"plain","with \"quote\"","back\\slash","a,b","{brace}",NULL,"NULL",""}"#)])
        #expect(PostgresArrayLiteral.parse(query.binds[0].text!)! == values)
        #expect(([1, 2, 3] as [Int]).postgresBind.text == #"{"1","2","3"}"#)
        #expect(([] as [Int]).postgresBind.text == "{}")
        #expect(([0x00, 0xAB, 0xFF] as [UInt8]).postgresBind.text == #"\x00abff"#)
    }

    @Test func arrayOutputParsesAsPostgreSQLWritesIt() {
        #expect(PostgresArrayLiteral.parse("{}")! == [])
        #expect(PostgresArrayLiteral.parse("{sub_1,aa00ff,NULL,null,\"NULL\",\"\"}")! == ["sub_1", "aa00ff", nil, nil, "NULL", ""])
        #expect(PostgresArrayLiteral.parse(#"{"a \"b\"","c\\d","x,y",NULLS,NUL}"#)! == [#"a "b""#, #"c\d"#, "x,y", "NULLS", "NUL"])
        #expect(PostgresArrayLiteral.parse("{ünï,\"cödé ✓\"}")! == ["ünï", "cödé ✓"])
        #expect(PostgresArrayLiteral.parse("{a,{b}}") == nil)
        #expect(PostgresArrayLiteral.parse(#"{"open}"#) == nil)
        #expect(PostgresArrayLiteral.parse("a,b") == nil)
    }

    @Test func identifiersAreQuoted() {
        let query: PostgresQuery = "LISTEN \(identifier: #"odd"name"#)"
        #expect(query.sql == #"LISTEN "odd""name""#)
        #expect(query.binds.isEmpty)
    }

    @Test func connectionFailuresAreRecognised() {
        #expect(PostgresError.connectionFailure("refused").isConnectionFailure)
        #expect(PostgresError.server(sqlState: "08006", message: "lost").isConnectionFailure)
        #expect(PostgresError.server(sqlState: "57P01", message: "admin shutdown").isConnectionFailure)
        #expect(!PostgresError.server(sqlState: "23505", message: "duplicate").isConnectionFailure)
        #expect(!PostgresError.poolTimeout.isConnectionFailure)
    }
}
