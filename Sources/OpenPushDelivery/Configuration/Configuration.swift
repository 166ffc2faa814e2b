package import OpenPushCore
package import Postgres

/// Everything `openpush` reads from its environment, validated once at start.
package struct Configuration: Sendable, Equatable {
    package var databaseURL: String?
    /// A direct connection to PostgreSQL for what needs a session of its own (LISTEN, migrations,
    /// partition maintenance) when `databaseURL` leads through a transaction pooler; nil = `databaseURL`.
    package var databaseDirectURL: String?
    package var listenHost: String = "127.0.0.1"
    package var listenPort: UInt16 = 8080
    /// The organization key that guards `/apps`; with none set, those routes refuse every caller.
    package var organizationAPIKey: String?
    package var databasePoolSize: Int = 10
    /// `statement_timeout` and `lock_timeout` of request connections; a reply overdue by 2 s
    /// more closes the connection (a black-holed database). 0 turns both off.
    package var databaseStatementTimeoutMilliseconds: Int = 10_000
    package var logLevel: Logger.Level = .info
    package var httpThreads: Int = 4
    package var maxBodyBytes: Int = 1 << 20
    /// Where `migrations/` and `openapi/` live; found by looking upward when unset.
    package var resourcesDirectory: String?
    /// APNs endpoints: `https://` (TLS) or `http://` (h2c, for the local simulator only).
    package var apnsProductionURL = "https://api.push.apple.com"
    package var apnsDevelopmentURL = "https://api.sandbox.push.apple.com"
    /// Apple's channel management hosts (broadcast Live Activities), apart from the push hosts.
    package var apnsChannelsProductionURL = "https://api-manage-broadcast.push.apple.com:2196"
    package var apnsChannelsDevelopmentURL = "https://api-manage-broadcast.sandbox.push.apple.com:2195"
    /// FCM HTTP v1 and Google's OAuth token endpoint: `https://` or `http://` (simulator, tests).
    /// The token URL is used instead of a key file's `token_uri`: a tenant never chooses where
    /// OpenPush connects.
    package var fcmURL = "https://fcm.googleapis.com"
    package var fcmTokenURL = "https://oauth2.googleapis.com/token"
    /// The push-service hosts a browser subscription's endpoint may be on
    /// (`OPENPUSH_WEB_PUSH_HOSTS` replaces the browsers' own).
    package var webPushHosts: [WebPushHostPattern] = WebPushHostPattern.defaults
    /// The VAPID `sub` of apps that set no `web_push_subject`: a `mailto:` or `https:` URL.
    package var webPushSubject: String?
    /// Extra CA certificates (PEM) to trust for APNs, e.g. the simulator's.
    package var apnsCAFile: String?
    /// Seconds a push on the wire waits for APNs' answer before it fails and is retried
    /// (APNs may have taken it: the retry can be a duplicate, with the same `apns-id`).
    package var apnsRequestTimeoutSeconds: Int = 30
    /// Delivery jobs in flight at once in this process; 0 runs no workers (`serve` only
    /// answers HTTP, and `openpush worker` processes deliver).
    package var deliveryLoops: Int = 8
    /// Jobs of one app in flight at once across every process: the rest of its jobs wait, so
    /// another app's job always finds a free worker. Keep it below the total loops.
    package var deliveryAppJobs: Int = 6
    /// When set, `/metrics` answers only `Authorization: Bearer <token>`.
    package var metricsToken: String?
    /// Days each device's delivery records are kept (whole daily partitions are dropped after;
    /// the message keeps its counts).
    package var deliveryRetentionDays: Int = DeliveryPartitionPlan.defaultRetentionDays
    /// Webhook endpoints may be `http://` and private, loopback or link-local addresses
    /// (`OPENPUSH_WEBHOOKS_ALLOW_PRIVATE=1`): for `openpush dev` and tests, never production.
    package var webhooksAllowPrivate = false
    /// Seals `.p8` keys and webhook secrets at rest (`OPENPUSH_SECRET_KEY`, and
    /// `OPENPUSH_SECRET_KEYS_OLD` to open values sealed before a rotation); empty: stored in clear.
    package var secretKeyring = SecretKeyring()

    package init() {}

    /// The bounds every pooled connection runs under (see `PostgresTimeouts`).
    package var databaseTimeouts: PostgresTimeouts {
        PostgresTimeouts(statement: databaseStatementTimeoutMilliseconds > 0
                         ? .milliseconds(databaseStatementTimeoutMilliseconds) : nil)
    }
}

/// A bad environment value: printed as one line naming the variable, exit code 2.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package var variable: String
    package var problem: String
    package var description: String { "\(variable) \(problem)" }

    package init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }
}

extension Configuration {
    /// The variables `openpush` reads, with their meaning, for `--help` and docs/operating/configuration.md.
    package static let documentation: [(name: String, meaning: String)] = [
        ("OPENPUSH_DATABASE_URL", "PostgreSQL URL or conninfo (required by serve, worker and migrate; dev embeds its own)"),
        ("OPENPUSH_DATABASE_DIRECT_URL", "direct PostgreSQL URL for LISTEN, migrations and partition upkeep when OPENPUSH_DATABASE_URL goes through PgBouncer in transaction mode (default: OPENPUSH_DATABASE_URL)"),
        ("OPENPUSH_LISTEN", "host:port to listen on (default 127.0.0.1:8080; [::1]:8080 for IPv6)"),
        ("OPENPUSH_ORG_API_KEY", "organization key for the /apps routes (at least 16 characters)"),
        ("OPENPUSH_DB_POOL_SIZE", "PostgreSQL connections per process, 1-500 (default 10)"),
        ("OPENPUSH_DB_STATEMENT_TIMEOUT_MS", "statement and lock timeout of PostgreSQL queries in ms, 0-3600000 (default 10000; 0 = none)"),
        ("OPENPUSH_LOG_LEVEL", "debug, info, warning or error (default info)"),
        ("OPENPUSH_HTTP_THREADS", "HTTP worker threads, 1-256 (default 4)"),
        ("OPENPUSH_MAX_BODY_BYTES", "largest accepted request body in bytes (default 1048576)"),
        ("OPENPUSH_RESOURCES_DIR", "directory holding migrations/ and openapi/ (default: found next to the binary or the working directory)"),
        ("OPENPUSH_APNS_PRODUCTION_URL", "APNs for production devices (default https://api.push.apple.com; http:// = h2c, simulator only)"),
        ("OPENPUSH_APNS_DEVELOPMENT_URL", "APNs for sandbox devices (default https://api.sandbox.push.apple.com)"),
        ("OPENPUSH_APNS_CHANNELS_PRODUCTION_URL", "APNs channel management, production (default https://api-manage-broadcast.push.apple.com:2196)"),
        ("OPENPUSH_APNS_CHANNELS_DEVELOPMENT_URL", "APNs channel management, sandbox (default https://api-manage-broadcast.sandbox.push.apple.com:2195)"),
        ("OPENPUSH_FCM_URL", "FCM HTTP v1 (default https://fcm.googleapis.com; http:// = h2c, simulator only)"),
        ("OPENPUSH_FCM_TOKEN_URL", "Google OAuth token endpoint for FCM service accounts, used instead of the key file's token_uri (default https://oauth2.googleapis.com/token; http:// allowed)"),
        ("OPENPUSH_WEB_PUSH_HOSTS", "comma-separated push-service hosts browser subscriptions may use, *. for every subdomain (default fcm.googleapis.com, updates.push.services.mozilla.com, web.push.apple.com, *.notify.windows.com)"),
        ("OPENPUSH_WEB_PUSH_SUBJECT", "VAPID subject (mailto: or https: URL) for apps without web_push_subject (default: none; web pushes of such apps are refused)"),
        ("OPENPUSH_APNS_CA_FILE", "extra PEM CA certificates to trust for APNs (e.g. the simulator's)"),
        ("OPENPUSH_APNS_REQUEST_TIMEOUT", "seconds a push sent to APNs waits for its answer before it is retried, 1-600 (default 30)"),
        ("OPENPUSH_DELIVERY_LOOPS", "delivery jobs in flight per process, 0-16 (default 8; 0 = no workers in serve)"),
        ("OPENPUSH_DELIVERY_APP_JOBS", "jobs of one app in flight across all processes, 1-1024 (default 6)"),
        ("OPENPUSH_METRICS_TOKEN", "when set, /metrics requires Authorization: Bearer <token> (default: open)"),
        ("OPENPUSH_DELIVERY_RETENTION_DAYS", "days per-device delivery records are kept, 1-3650 (default 30); message counts stay"),
        ("OPENPUSH_WEBHOOKS_ALLOW_PRIVATE", "1 lets webhooks use http:// and private, loopback or link-local addresses (default 0; dev sets 1)"),
        ("OPENPUSH_SECRET_KEY", "32 random bytes (64 hex digits or base64) that seal .p8 keys and webhook secrets at rest with AES-256-GCM (default: none, stored in clear, with a warning; dev keeps one in .openpush/)"),
        ("OPENPUSH_SECRET_KEYS_OLD", "comma-separated earlier OPENPUSH_SECRET_KEY values, to open what they sealed until `openpush secrets rotate` re-seals it"),
    ]

    /// Reads the configuration from environment variables. Unset or empty variables keep defaults.
    package static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingWhitespace, !raw.isEmpty else { return nil }
            return raw
        }
        for (variable, keyPath) in [("OPENPUSH_DATABASE_URL", \Configuration.databaseURL),
                                    ("OPENPUSH_DATABASE_DIRECT_URL", \Configuration.databaseDirectURL)] {
            guard let url = value(variable) else { continue }
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") || url.contains("=") else {
                throw ConfigurationError(variable: variable, problem: "must be a postgresql:// URL or a libpq conninfo string")
            }
            configuration[keyPath: keyPath] = url
        }
        if let listen = value("OPENPUSH_LISTEN") {
            guard let (host, port) = parseListenAddress(listen) else {
                throw ConfigurationError(variable: "OPENPUSH_LISTEN",
                                         problem: "must be host:port with a port from 0 to 65535, got \"\(listen)\"")
            }
            configuration.listenHost = host
            configuration.listenPort = port
        }
        if let key = value("OPENPUSH_ORG_API_KEY") {
            guard key.count >= 16 else {
                throw ConfigurationError(variable: "OPENPUSH_ORG_API_KEY", problem: "must be at least 16 characters")
            }
            configuration.organizationAPIKey = key
        }
        if let size = value("OPENPUSH_DB_POOL_SIZE") {
            configuration.databasePoolSize = try integer(size, "OPENPUSH_DB_POOL_SIZE", 1...500)
        }
        if let timeout = value("OPENPUSH_DB_STATEMENT_TIMEOUT_MS") {
            configuration.databaseStatementTimeoutMilliseconds = try integer(timeout, "OPENPUSH_DB_STATEMENT_TIMEOUT_MS",
                                                                             0...3_600_000)
        }
        if let level = value("OPENPUSH_LOG_LEVEL") {
            guard let parsed = Logger.Level(name: level) else {
                throw ConfigurationError(variable: "OPENPUSH_LOG_LEVEL",
                                         problem: "must be debug, info, warning or error, got \"\(level)\"")
            }
            configuration.logLevel = parsed
        }
        if let threads = value("OPENPUSH_HTTP_THREADS") {
            configuration.httpThreads = try integer(threads, "OPENPUSH_HTTP_THREADS", 1...256)
        }
        if let bytes = value("OPENPUSH_MAX_BODY_BYTES") {
            configuration.maxBodyBytes = try integer(bytes, "OPENPUSH_MAX_BODY_BYTES", 1024...(64 << 20))
        }
        configuration.resourcesDirectory = value("OPENPUSH_RESOURCES_DIR")
        for (variable, keyPath) in [("OPENPUSH_APNS_PRODUCTION_URL", \Configuration.apnsProductionURL),
                                    ("OPENPUSH_APNS_DEVELOPMENT_URL", \Configuration.apnsDevelopmentURL),
                                    ("OPENPUSH_APNS_CHANNELS_PRODUCTION_URL", \Configuration.apnsChannelsProductionURL),
                                    ("OPENPUSH_APNS_CHANNELS_DEVELOPMENT_URL", \Configuration.apnsChannelsDevelopmentURL),
                                    ("OPENPUSH_FCM_URL", \Configuration.fcmURL),
                                    ("OPENPUSH_FCM_TOKEN_URL", \Configuration.fcmTokenURL)] {
            guard let url = value(variable) else { continue }
            guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.count > "https://".count else {
                throw ConfigurationError(variable: variable, problem: "must be an https:// or http:// URL, got \"\(url)\"")
            }
            configuration[keyPath: keyPath] = url
        }
        if let hosts = value("OPENPUSH_WEB_PUSH_HOSTS") {
            guard let patterns = WebPushHostPattern.list(hosts) else {
                throw ConfigurationError(variable: "OPENPUSH_WEB_PUSH_HOSTS",
                                         problem: "must be comma-separated host names, each optionally starting with *., got \"\(hosts)\"")
            }
            configuration.webPushHosts = patterns
        }
        if let subject = value("OPENPUSH_WEB_PUSH_SUBJECT") {
            guard WebPushSubject.isValid(subject) else {
                throw ConfigurationError(variable: "OPENPUSH_WEB_PUSH_SUBJECT", problem: WebPushSubject.requirement + ", got \"\(subject)\"")
            }
            configuration.webPushSubject = subject
        }
        configuration.apnsCAFile = value("OPENPUSH_APNS_CA_FILE")
        if let timeout = value("OPENPUSH_APNS_REQUEST_TIMEOUT") {
            configuration.apnsRequestTimeoutSeconds = try integer(timeout, "OPENPUSH_APNS_REQUEST_TIMEOUT", 1...600)
        }
        if let loops = value("OPENPUSH_DELIVERY_LOOPS") {
            configuration.deliveryLoops = try integer(loops, "OPENPUSH_DELIVERY_LOOPS", 0...16)
        }
        if let jobs = value("OPENPUSH_DELIVERY_APP_JOBS") {
            configuration.deliveryAppJobs = try integer(jobs, "OPENPUSH_DELIVERY_APP_JOBS", 1...1024)
        }
        configuration.metricsToken = value("OPENPUSH_METRICS_TOKEN")
        if let days = value("OPENPUSH_DELIVERY_RETENTION_DAYS") {
            configuration.deliveryRetentionDays = try integer(days, "OPENPUSH_DELIVERY_RETENTION_DAYS",
                                                              DeliveryPartitionPlan.retentionDaysRange)
        }
        if let allow = value("OPENPUSH_WEBHOOKS_ALLOW_PRIVATE") {
            guard allow == "0" || allow == "1" else {
                throw ConfigurationError(variable: "OPENPUSH_WEBHOOKS_ALLOW_PRIVATE", problem: "must be 0 or 1, got \"\(allow)\"")
            }
            configuration.webhooksAllowPrivate = allow == "1"
        }
        configuration.secretKeyring = try secretKeyring(current: value("OPENPUSH_SECRET_KEY"), old: value("OPENPUSH_SECRET_KEYS_OLD"))
        return configuration
    }

    /// Never echoes a key back: a bad one is named by its variable (and position) only.
    static func secretKeyring(current: String?, old: String?) throws(ConfigurationError) -> SecretKeyring {
        let problem = "must be 32 bytes as 64 hex digits or as base64 (make one with `openssl rand -hex 32`)"
        var currentKey: SecretKeyring.Key?
        if let current {
            guard let key = SecretKeyring.parseKey(current) else {
                throw ConfigurationError(variable: "OPENPUSH_SECRET_KEY", problem: problem)
            }
            currentKey = key
        }
        var oldKeys: [SecretKeyring.Key] = []
        for (index, text) in (old ?? "").split(separator: ",").enumerated() {
            guard let key = SecretKeyring.parseKey(String(text)) else {
                throw ConfigurationError(variable: "OPENPUSH_SECRET_KEYS_OLD", problem: "key \(index + 1) " + problem)
            }
            oldKeys.append(key)
        }
        return SecretKeyring(current: currentKey, old: oldKeys)
    }

    private static func integer(_ text: String, _ variable: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw ConfigurationError(variable: variable,
                                     problem: "must be an integer from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return number
    }

    /// `host:port`, or `[v6 address]:port`.
    static func parseListenAddress(_ text: String) -> (String, UInt16)? {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard !host.isEmpty, let port = UInt16(portText) else { return nil }
        return (String(host), port)
    }
}

extension String {
    package var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
