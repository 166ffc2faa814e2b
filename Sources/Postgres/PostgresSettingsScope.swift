import Foundation

/// Where a connection's settings (the output formats the decoders expect, the statement and
/// lock timeouts) live.
///
/// Behind a transaction pooler (PgBouncer `pool_mode = transaction`) each transaction may run on
/// another server connection, and a statement outside `BEGIN`…`COMMIT` is a transaction of its
/// own. A session `SET` then lands on whichever server connection ran it: the next transaction
/// may not see it, and another client's transaction on that server connection does (PgBouncer
/// tracks only `client_encoding`, `DateStyle`, `TimeZone`, `standard_conforming_strings` and
/// `application_name` per client; 1.18 refuses the `options` startup parameter).
public enum PostgresSettingsScope: Sendable, Equatable {
    /// `SET` once when the connection opens: a direct connection to PostgreSQL (or a pooler in
    /// session mode), where the session is the connection's own.
    case session
    /// Nothing set on the session; every transaction sets them for itself: `SET LOCAL` in the
    /// same simple query as `BEGIN`, and `set_config(…, true)` pipelined before a statement
    /// that runs outside a transaction. The same round trips as without settings; only the
    /// timeouts, and any format the server's defaults do not already give, are set. A lone
    /// statement then runs in a two-statement pipeline, so what refuses a transaction block
    /// (`VACUUM`, `CREATE DATABASE`) belongs on a session-scoped (direct) connection.
    case transaction
}

/// The settings every statement of a connection runs under, as `name`/`value` pairs, and the
/// SQL that applies them in each scope.
struct PostgresSessionSettings: Sendable, Equatable {
    /// Output formats the decoders read, whatever the server's defaults are.
    static let formats: [(name: String, value: String)] = [
        ("DateStyle", "ISO"), ("TimeZone", "UTC"), ("bytea_output", "hex"), ("extra_float_digits", "3"),
    ]

    var settings: [(name: String, value: String)]

    /// What a connection in `PostgresSettingsScope.transaction` sets in every transaction: the
    /// timeouts, and only those output formats that the server's own values (`current`, read
    /// once at connect) do not already give. Every `SET LOCAL` costs the server time in every
    /// transaction, and the defaults give the formats almost always: `DateStyle` starting with
    /// ISO, `TimeZone` UTC, `bytea_output` hex, and `extra_float_digits` ≥ 1, which since
    /// PostgreSQL 12 means the shortest exact output (3 only forces more digits of the same value).
    static func perTransaction(current: [String: String], timeouts: [(name: String, value: String)]) -> Self {
        func given(_ name: String) -> Bool {
            guard let value = current[name] else { return false }
            switch name {
            case "DateStyle": return value.hasPrefix("ISO")
            case "TimeZone": return value == "UTC" || value == "Etc/UTC"
            case "extra_float_digits": return (Int(value) ?? 0) >= 1
            default: return formats.first { $0.name == name }?.value == value
            }
        }
        return Self(settings: formats.filter { !given($0.name) } + timeouts)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.settings.map(\.name) == rhs.settings.map(\.name) && lhs.settings.map(\.value) == rhs.settings.map(\.value)
    }

    /// `SET DateStyle TO 'ISO'; …` for the session, run once at connect.
    var sessionScript: String {
        settings.map { "SET \($0.name) TO \(Self.literal($0.value))" }.joined(separator: "; ")
    }

    /// `BEGIN; SET LOCAL DateStyle TO 'ISO'; …`: one simple query, one round trip. `SET LOCAL`
    /// takes no snapshot, so `SET TRANSACTION ISOLATION LEVEL` may still follow.
    var beginScript: String {
        (["BEGIN"] + settings.map { "SET LOCAL \($0.name) TO \(Self.literal($0.value))" }).joined(separator: "; ")
    }

    /// `SELECT set_config('DateStyle', 'ISO', true), …`, pipelined before a statement outside a
    /// transaction: both run in the pipeline's one implicit transaction, so the values hold for
    /// that statement and end with it.
    var statementPrefix: PostgresQuery {
        let calls = settings.map { "set_config(\(Self.literal($0.name)), \(Self.literal($0.value)), true)" }
        return PostgresQuery(unsafeSQL: "SELECT " + calls.joined(separator: ", "))
    }

    /// A string literal; the names and values are ours, but quoting costs nothing.
    static func literal(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
