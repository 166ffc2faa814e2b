import Testing
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The compiler's SQL text and binds, without a database.
@Suite struct FilterSQLTests {
    static let now = 1_800_000_000.0

    func compiled(_ entries: JSONValue) throws -> PostgresQuery {
        FilterSQL.condition(try FilterParser.parse(entries).get(), now: Self.now)
    }

    @Test func andGroupsInsideOrAndEveryValueIsABind() throws {
        let query = try compiled([
            ["field": "language", "relation": "=", "value": "EN"],
            ["field": "session_count", "relation": ">", "value": 3],
            ["operator": "OR"],
            ["field": "tag", "key": "plan", "relation": "in_array", "value": ["pro", "team"]],
        ])
        #expect(query.sql == "((coalesce(lower(s.language) = $1, false) AND s.session_count > $2::numeric)"
            + " OR (coalesce((s.tags ->> $3::text) = ANY($4::text[]), false)))")
        #expect(query.binds.map(\.text) == ["en", "3.0", "plan", #"{"pro","team"}"#])
    }

    @Test func hostileKeysAndValuesNeverReachTheSQLText() throws {
        let hostile = "'; DROP TABLE subscriptions; --"
        let query = try compiled([
            ["field": "tag", "key": .string(hostile), "relation": "=", "value": .string(hostile)],
            ["field": "tag", "key": .string(hostile), "relation": "not_in_array", "value": [.string(hostile)]],
            ["field": "country", "relation": "!=", "value": .string(hostile)],
            ["field": "app_version", "relation": "=", "value": .string(hostile)],
        ])
        #expect(!query.sql.contains("DROP"))
        #expect(!query.sql.contains(";"))
        #expect(!query.sql.contains("--"))
        let binds = query.binds.compactMap(\.text)
        #expect(binds.filter { $0 == hostile }.count == 4)
        #expect(binds.contains(hostile.lowercased()))
    }

    @Test func timeComesFromNowNeverFromTheDatabaseClock() throws {
        let query = try compiled([
            ["field": "last_session", "relation": ">", "hours_ago": 24],
            ["field": "first_session", "relation": "<", "hours_ago": 2],
            ["field": "tag", "key": "paid_at", "relation": "time_elapsed_gt", "value": 60],
        ])
        #expect(!query.sql.lowercased().contains("now()"))
        #expect(query.sql == "((s.last_session_at < to_timestamp($1) AND s.first_session_at > to_timestamp($2)"
            + " AND coalesce(openpush_filter_number(s.tags ->> $3::text) < $4::numeric, false)))")
        #expect(query.binds.map(\.text) == [
            String(Self.now - 24 * 3600), String(Self.now - 2 * 3600), "paid_at", String(Self.now - 60),
        ])
    }

    @Test func textTestsTreatAMissingAttributeAsDifferent() throws {
        let query = try compiled([
            ["field": "country", "relation": "!=", "value": "US"],
            ["field": "app_version", "relation": "not_exists"],
            ["field": "app_version", "relation": "<", "value": "2.1"],
        ])
        #expect(query.sql == "((coalesce(lower(s.country) <> $1, true) AND coalesce(s.app_version = '', true)"
            + " AND coalesce(openpush_filter_version(s.app_version) < openpush_filter_version($2), false)))")
        #expect(query.binds.map(\.text) == ["us", "2.1"])
    }
}
