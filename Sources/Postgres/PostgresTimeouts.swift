/// How long a connection may wait on the server. A database that stops answering (crashed
/// host, network black hole) must cost a caller a bounded wait and an error, never a thread
/// blocked forever.
///
/// The TCP settings become libpq connection keywords and `statement` becomes the session's
/// `statement_timeout` and `lock_timeout`; a value the operator wrote in the URL or conninfo
/// wins over each of them. On top, the client gives up on any reply `statement + replyGrace`
/// after sending a query and closes the connection: a server that never received the query
/// cannot cancel it, and a peer that still acknowledges TCP (a stalled proxy) defeats keepalives.
public struct PostgresTimeouts: Sendable, Equatable {
    /// `statement_timeout` and `lock_timeout` for every session; nil (the default: migrations,
    /// administration) leaves the server's own and lets the client wait for replies without limit.
    public var statement: Duration?
    /// How much longer than `statement` the client waits for a reply before it declares the
    /// connection dead.
    public var replyGrace: Duration = .seconds(2)
    /// libpq `connect_timeout`, whole seconds (libpq's minimum is 2).
    public var connectSeconds = 2
    /// libpq `tcp_user_timeout`: sent data unacknowledged this long breaks the connection.
    public var tcpUserTimeout: Duration = .seconds(10)
    /// TCP keepalives on idle connections: first probe after `idle`, then every `interval`,
    /// `count` probes lost and the connection is gone.
    public var keepalivesIdleSeconds = 10
    public var keepalivesIntervalSeconds = 5
    public var keepalivesCount = 3

    public init(statement: Duration? = nil) {
        self.statement = statement
    }

    /// The client-side deadline for any one reply, nil for none.
    public var replyTimeout: Duration? {
        statement.map { $0 + replyGrace }
    }

    /// Connection keywords, in libpq's spelling; the operator's conninfo is applied after them.
    var connectionKeywords: [(String, String)] {
        [
            ("connect_timeout", String(connectSeconds)),
            ("keepalives", "1"),
            ("keepalives_idle", String(keepalivesIdleSeconds)),
            ("keepalives_interval", String(keepalivesIntervalSeconds)),
            ("keepalives_count", String(keepalivesCount)),
            ("tcp_user_timeout", String(Self.milliseconds(tcpUserTimeout))),
        ]
    }

    /// `SET` statements for the session settings `operatorOptions` (the conninfo's `options`,
    /// e.g. `-c statement_timeout=0`) does not already set.
    func sessionSettings(operatorOptions: String?) -> [String] {
        settings(operatorOptions: operatorOptions).map { "SET \($0.name) TO \($0.value)" }
    }

    /// The timeouts `operatorOptions` does not already set, as setting names and values (ms).
    func settings(operatorOptions: String?) -> [(name: String, value: String)] {
        guard let statement else { return [] }
        let milliseconds = String(Self.milliseconds(statement))
        let chosen = Self.settingNames(inOptions: operatorOptions ?? "")
        return ["statement_timeout", "lock_timeout"]
            .filter { !chosen.contains($0) }
            .map { ($0, milliseconds) }
    }

    /// The settings named in a libpq `options` value: `-c name=value`, `-cname=value` or `--name=value`.
    static func settingNames(inOptions options: String) -> Set<String> {
        var names = Set<String>()
        for token in options.split(whereSeparator: \.isWhitespace) {
            var setting = Substring(token)
            if setting.hasPrefix("--") {
                setting = setting.dropFirst(2)
            } else if setting.hasPrefix("-c") {
                setting = setting.dropFirst(2)
            }
            guard let equals = setting.firstIndex(of: "="), equals > setting.startIndex else { continue }
            names.insert(setting[..<equals].replacingOccurrences(of: "-", with: "_").lowercased())
        }
        return names
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
