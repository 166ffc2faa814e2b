import Foundation
package import HTTPServer
package import OpenPushCore
package import OpenPushDelivery
package import OpenPushServer
package import Postgres

/// An OpenPush application over a fresh migrated database, called in-process without sockets.
package struct TestApp: Sendable {
    /// The database this app runs on.
    package let conninfo: String
    package let services: Services
    package let application: OpenPushApplication
    package let logs: CapturingLogHandler

    /// The repository checkout this test binary was built from (holds `migrations/`, `openapi/`).
    package static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    package static func make(
        configure: (inout Configuration) -> Void = { _ in },
        now: @escaping @Sendable () -> Double = WallClock.now,
        routes: @Sendable (inout Router<RouteHandler>) -> Void = { _ in }
    ) async throws -> TestApp {
        let database = try await TestDatabase.create()
        return try make(conninfo: database.conninfo, configure: configure, now: now, routes: routes)
    }

    /// An application over a given database (for example a private cluster a test stops and starts).
    package static func make(
        conninfo: String,
        configure: (inout Configuration) -> Void = { _ in },
        now: @escaping @Sendable () -> Double = WallClock.now,
        routes: @Sendable (inout Router<RouteHandler>) -> Void = { _ in }
    ) throws -> TestApp {
        var configuration = Configuration()
        configuration.resourcesDirectory = repositoryRoot
        configuration.databasePoolSize = 4
        configuration.listenPort = 0
        configuration.logLevel = .debug
        // Tests run their webhook receivers on loopback.
        configuration.webhooksAllowPrivate = true
        configure(&configuration)
        let services = try ServerBootstrap.makeServices(configuration: configuration, databaseURL: conninfo, now: now)
        let logs = CapturingLogHandler()
        let logger = Logger(label: "test", level: configuration.logLevel, handler: logs)
        let application = OpenPushApplication(services: services, logger: logger, routes: routes)
        return TestApp(conninfo: conninfo, services: services, application: application, logs: logs)
    }

    /// Sends a request through the application exactly as the HTTP server would.
    package func request(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
                        query: [String: String] = [:]) async -> TestResponse {
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
        return TestResponse(await application.respond(to: request))
    }

    package func request(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders = [:], json: JSONValue) async -> TestResponse {
        var headers = headers
        headers.add(name: "Content-Type", value: "application/json")
        return await request(method, path, headers: headers, body: json.serializedBytes)
    }

    /// Starts a real HTTP server on an ephemeral port for tests that need sockets.
    package func startHTTP() throws -> HTTPServer {
        try ServerBootstrap.startHTTP(application: application)
    }
}

/// A response with its body decoded when it is JSON.
package struct TestResponse: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(_ response: HTTPResponse) {
        status = response.status
        headers = response.headers
        body = response.body
    }

    package var json: JSONValue? { try? JSONValue.parse(body) }
    package var text: String { String(decoding: body, as: UTF8.self) }
}

extension TestApp {
    /// Creates an app straight through the store (no org key needed) and returns its keys.
    package func createApp(_ settings: AppSettings = AppSettings(name: "Test app", apnsBundleID: "com.example.app"))
        async throws -> CreatedApp
    {
        try await AppStore.create(settings, now: services.now(), sealing: services.configuration.secretKeyring,
                                  in: services.database)
    }

    /// Writes fixtures in one transaction, on a connection of their own without the request
    /// connections' timeouts (10 s a statement, and the connection closed 2 s after): tens of
    /// thousands of rows on a loaded machine (the heavy suites run side by side) can take longer.
    package func seed(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) async throws {
        let fixtures = PostgresPool(conninfo: conninfo, size: 1)
        do {
            try await fixtures.transaction(body)
        } catch {
            await fixtures.close()
            throw error
        }
        await fixtures.close()
    }

    package func seed(_ query: PostgresQuery) async throws {
        try await seed { try $0.query(query) }
    }
}

extension HTTPHeaders {
    /// `Authorization: Key <key>`, the spelling the contract recommends.
    package static func restKey(_ key: String) -> HTTPHeaders { ["Authorization": "Key \(key)"] }
    package static func sdkKey(_ key: String) -> HTTPHeaders { ["X-OP-SDK-Key": key] }
}
