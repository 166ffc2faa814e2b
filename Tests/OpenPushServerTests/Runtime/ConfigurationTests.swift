import Testing
import OpenPushCore
import OpenPushDelivery
import Postgres
@testable import OpenPushServer

@Suite struct ConfigurationTests {
    @Test func defaultsWhenNothingIsSet() throws {
        let configuration = try Configuration.fromEnvironment([:])
        #expect(configuration.databaseURL == nil)
        #expect(configuration.listenHost == "127.0.0.1")
        #expect(configuration.listenPort == 8080)
        #expect(configuration.databasePoolSize == 10)
        #expect(configuration.logLevel == .info)
        #expect(configuration.maxBodyBytes == 1_048_576)
        #expect(configuration.organizationAPIKey == nil)
        #expect(configuration.databaseStatementTimeoutMilliseconds == 10_000)
        #expect(configuration.databaseTimeouts.statement == .seconds(10))
        #expect(configuration.databaseTimeouts.replyTimeout == .seconds(12))
    }

    @Test func statementTimeoutIsReadAndZeroTurnsItOff() throws {
        let set = try Configuration.fromEnvironment(["OPENPUSH_DB_STATEMENT_TIMEOUT_MS": "2500"])
        #expect(set.databaseTimeouts.statement == .milliseconds(2500))
        let off = try Configuration.fromEnvironment(["OPENPUSH_DB_STATEMENT_TIMEOUT_MS": "0"])
        #expect(off.databaseTimeouts.statement == nil)
        #expect(off.databaseTimeouts.replyTimeout == nil)
    }

    @Test func theAPNsRequestTimeoutIsReadAndReachesTheClient() throws {
        #expect(try Configuration.fromEnvironment([:]).apnsRequestTimeoutSeconds == 30)
        #expect(try Configuration.fromEnvironment([:]).apnsClientConfiguration.requestTimeout == 30)
        let timeout = try Configuration.fromEnvironment(["OPENPUSH_APNS_REQUEST_TIMEOUT": "120"])
        #expect(timeout.apnsClientConfiguration.requestTimeout == 120)
        #expect(throws: ConfigurationError.self) { try Configuration.fromEnvironment(["OPENPUSH_APNS_REQUEST_TIMEOUT": "0"]) }
    }

    @Test func theFCMURLsDefaultToGoogleAndAcceptHTTP() throws {
        let defaults = try Configuration.fromEnvironment([:])
        #expect(defaults.fcmURL == "https://fcm.googleapis.com")
        #expect(defaults.fcmTokenURL == "https://oauth2.googleapis.com/token")
        let local = try Configuration.fromEnvironment(["OPENPUSH_FCM_URL": "http://127.0.0.1:2199",
                                                       "OPENPUSH_FCM_TOKEN_URL": "http://127.0.0.1:2199/token"])
        #expect(local.fcmURL == "http://127.0.0.1:2199")
        #expect(local.fcmTokenURL == "http://127.0.0.1:2199/token")
        #expect(throws: ConfigurationError.self) { try Configuration.fromEnvironment(["OPENPUSH_FCM_URL": "ftp://fcm"]) }
        #expect(throws: ConfigurationError.self) { try Configuration.fromEnvironment(["OPENPUSH_FCM_TOKEN_URL": "oauth2.googleapis.com"]) }
    }

    @Test func theAppJobCapIsRead() throws {
        #expect(try Configuration.fromEnvironment([:]).deliveryAppJobs == 6)
        #expect(try Configuration.fromEnvironment(["OPENPUSH_DELIVERY_APP_JOBS": "12"]).deliveryAppJobs == 12)
    }

    @Test func readsEveryVariable() throws {
        let configuration = try Configuration.fromEnvironment([
            "OPENPUSH_DATABASE_URL": "postgresql://u@localhost/openpush",
            "OPENPUSH_LISTEN": "0.0.0.0:9000",
            "OPENPUSH_ORG_API_KEY": "org-key-0123456789",
            "OPENPUSH_DB_POOL_SIZE": "25",
            "OPENPUSH_LOG_LEVEL": "DEBUG",
            "OPENPUSH_HTTP_THREADS": "8",
            "OPENPUSH_MAX_BODY_BYTES": "2048",
        ])
        #expect(configuration.databaseURL == "postgresql://u@localhost/openpush")
        #expect(configuration.listenHost == "0.0.0.0")
        #expect(configuration.listenPort == 9000)
        #expect(configuration.organizationAPIKey == "org-key-0123456789")
        #expect(configuration.databasePoolSize == 25)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.httpThreads == 8)
        #expect(configuration.maxBodyBytes == 2048)
    }

    /// With a direct URL of its own the main one is taken for a transaction pooler: the pool
    /// keeps nothing on its sessions, and LISTEN, migrations and partition upkeep go direct.
    @Test func theDirectURLDefaultsToTheMainOneAndSplitsTheEndpoints() throws {
        let single = try Configuration.fromEnvironment(["OPENPUSH_DATABASE_URL": "postgresql://u@db/openpush"])
        #expect(single.databaseDirectURL == nil)
        let one = DatabaseEndpoints(configuration: single, databaseURL: "postgresql://u@db/openpush")
        #expect(one.direct == "postgresql://u@db/openpush")
        #expect(one.pooledSettingsScope == .session)
        let split = try Configuration.fromEnvironment(["OPENPUSH_DATABASE_URL": "postgresql://u@bouncer:6432/openpush",
                                                       "OPENPUSH_DATABASE_DIRECT_URL": "host=db port=5432 dbname=openpush"])
        #expect(split.databaseDirectURL == "host=db port=5432 dbname=openpush")
        let two = DatabaseEndpoints(configuration: split, databaseURL: "postgresql://u@bouncer:6432/openpush")
        #expect(two.pooled == "postgresql://u@bouncer:6432/openpush")
        #expect(two.direct == "host=db port=5432 dbname=openpush")
        #expect(two.pooledSettingsScope == .transaction)
        let services = try ServerBootstrap.makeServices(configuration: split, databaseURL: "postgresql://u@bouncer:6432/openpush")
        #expect(services.databaseConninfo == "host=db port=5432 dbname=openpush")
    }

    @Test func deliveryRetentionDefaultsTo30DaysAndIsRead() throws {
        #expect(try Configuration.fromEnvironment([:]).deliveryRetentionDays == 30)
        #expect(try Configuration.fromEnvironment(["OPENPUSH_DELIVERY_RETENTION_DAYS": "7"]).deliveryRetentionDays == 7)
        #expect(try Configuration.fromEnvironment(["OPENPUSH_DELIVERY_RETENTION_DAYS": "1"]).deliveryRetentionDays == 1)
        #expect(try Configuration.fromEnvironment(["OPENPUSH_DELIVERY_RETENTION_DAYS": "3650"]).deliveryRetentionDays == 3650)
    }

    @Test func acceptsBracketedIPv6() throws {
        let configuration = try Configuration.fromEnvironment(["OPENPUSH_LISTEN": "[::1]:8081"])
        #expect(configuration.listenHost == "::1")
        #expect(configuration.listenPort == 8081)
    }

    @Test(arguments: [
        ("OPENPUSH_LISTEN", "8080"),
        ("OPENPUSH_LISTEN", "localhost:99999"),
        ("OPENPUSH_LISTEN", ":8080"),
        ("OPENPUSH_LISTEN", "::1:8080"),
        ("OPENPUSH_DB_POOL_SIZE", "0"),
        ("OPENPUSH_DB_POOL_SIZE", "ten"),
        ("OPENPUSH_LOG_LEVEL", "loud"),
        ("OPENPUSH_ORG_API_KEY", "short"),
        ("OPENPUSH_DATABASE_URL", "mysql://x"),
        ("OPENPUSH_DATABASE_DIRECT_URL", "mysql://x"),
        ("OPENPUSH_HTTP_THREADS", "-1"),
        ("OPENPUSH_MAX_BODY_BYTES", "1"),
        ("OPENPUSH_DB_STATEMENT_TIMEOUT_MS", "-5"),
        ("OPENPUSH_DB_STATEMENT_TIMEOUT_MS", "10s"),
        ("OPENPUSH_DELIVERY_APP_JOBS", "0"),
        ("OPENPUSH_DELIVERY_APP_JOBS", "many"),
        ("OPENPUSH_DELIVERY_RETENTION_DAYS", "0"),
        ("OPENPUSH_DELIVERY_RETENTION_DAYS", "3651"),
        ("OPENPUSH_DELIVERY_RETENTION_DAYS", "30d"),
    ])
    func aBadValueNamesItsVariable(_ variable: String, _ value: String) {
        #expect {
            _ = try Configuration.fromEnvironment([variable: value])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == variable && error.description.hasPrefix(variable) && !error.description.contains("\n")
        }
    }

    @Test func everyVariableIsDocumented() {
        let names = Set(Configuration.documentation.map(\.name))
        for required in ["OPENPUSH_DATABASE_URL", "OPENPUSH_DATABASE_DIRECT_URL", "OPENPUSH_LISTEN", "OPENPUSH_ORG_API_KEY", "OPENPUSH_DB_POOL_SIZE", "OPENPUSH_LOG_LEVEL",
                         "OPENPUSH_DB_STATEMENT_TIMEOUT_MS", "OPENPUSH_DELIVERY_RETENTION_DAYS"] {
            #expect(names.contains(required))
        }
    }
}
