/// What was sent to PostgreSQL: statements (every command, `BEGIN` and `COMMIT` included; a
/// script of several in one simple query counts once) and round trips (a pipeline of several
/// statements is one). What a request costs the database, counted where it cannot be missed.
public struct PostgresTraffic: Sendable, Equatable {
    public var statements: Int
    public var roundTrips: Int

    public init(statements: Int = 0, roundTrips: Int = 0) {
        self.statements = statements
        self.roundTrips = roundTrips
    }

    /// One round trip carrying `statements` statements.
    mutating func record(statements: Int = 1) {
        self.statements += statements
        roundTrips += 1
    }

    public static func - (lhs: PostgresTraffic, rhs: PostgresTraffic) -> PostgresTraffic {
        PostgresTraffic(statements: lhs.statements - rhs.statements, roundTrips: lhs.roundTrips - rhs.roundTrips)
    }

    public static func + (lhs: PostgresTraffic, rhs: PostgresTraffic) -> PostgresTraffic {
        PostgresTraffic(statements: lhs.statements + rhs.statements, roundTrips: lhs.roundTrips + rhs.roundTrips)
    }
}
