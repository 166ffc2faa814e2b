import Foundation
import APNs
import APNsSimulator
import Crypto
import FCMSimulator
import HTTPClient
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import WebPushSimulator

struct CommandLineError: Error {
    var message: String
}

/// The subcommands. Each builds the same services and differs only in where the database
/// comes from and whether the HTTP server runs.
enum Commands {
    static var usage: String {
        // Padded to the longest name: `padding(toLength:)` also truncates, and cut names apart.
        let width = Configuration.documentation.map(\.name.count).max() ?? 0
        let variables = Configuration.documentation.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0)) \($0.meaning)" }
        return """
        usage: openpush <command> [options]

        commands:
          serve [--no-migrate]   run the API server against OPENPUSH_DATABASE_URL (migrates first unless --no-migrate)
          worker                 deliver queued pushes from OPENPUSH_DATABASE_URL (no HTTP); run as many as you like
          migrate                apply pending migrations to OPENPUSH_DATABASE_URL and exit
          dev [--certificate-app]
                                 run with a private PostgreSQL under .openpush/ (no configuration needed) and a demo app;
                                 --certificate-app adds one that authenticates with an APNs certificate (simulator over TLS)
          \(AppsCommand.usage)
                                 create an app in OPENPUSH_DATABASE_URL (migrates first); prints its id and keys
          \(SecretsCommand.usage)         re-seal every stored .p8 key and webhook secret with OPENPUSH_SECRET_KEY
                                 (older values opened with OPENPUSH_SECRET_KEYS_OLD), in one transaction
          \(ApnsSimCommand.usage)
                                 run the local APNs simulator and its control API
          \(FcmSimCommand.usage)
                                 run the local FCM simulator, its OAuth token endpoint and its control API
          \(WebPushSimCommand.usage)
                                 run the local Web Push simulator (a browser push service) and its control API
          help                   show this text

        environment:
        \(variables.joined(separator: "\n"))
        """
    }

    static func serve(_ configuration: Configuration, arguments: [String], logger: Logger) async throws {
        let unknown = arguments.filter { $0 != "--no-migrate" }
        guard unknown.isEmpty else { throw CommandLineError(message: "unknown option '\(unknown[0])' for serve") }
        let databaseURL = try requireDatabaseURL(configuration)
        try await run(configuration, databaseURL: databaseURL, migrate: !arguments.contains("--no-migrate"), logger: logger)
    }

    static func migrate(_ configuration: Configuration, logger: Logger) async throws {
        let databaseURL = try requireDatabaseURL(configuration)
        let services = try ServerBootstrap.makeServices(configuration: configuration, databaseURL: databaseURL)
        try await ServerBootstrap.migrate(services, logger: logger)
        await services.database.close()
    }

    static func dev(_ configuration: Configuration, arguments: [String] = [], logger: Logger) async throws {
        let unknown = arguments.filter { $0 != "--certificate-app" }
        guard unknown.isEmpty else { throw CommandLineError(message: "unknown option '\(unknown[0])' for dev") }
        // A CA of this start that the simulator trusts, and the certificate app's certificate from it.
        let authority = arguments.contains("--certificate-app") ? try LocalCertificateAuthority.generate() : nil
        var configuration = configuration
        // A local receiver on this machine is what dev is for.
        configuration.webhooksAllowPrivate = true
        let state = FileManager.default.currentDirectoryPath + "/.openpush"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let database = EmbeddedDatabase(stateDirectory: state)
        let databaseURL = try configuration.databaseURL ?? database.start()
        if configuration.organizationAPIKey == nil {
            configuration.organizationAPIKey = try DevSecrets.organizationKey(stateDirectory: state)
        }
        if !configuration.secretKeyring.seals {
            configuration.secretKeyring = SecretKeyring(current: try DevSecrets.secretKey(stateDirectory: state),
                                                        old: configuration.secretKeyring.old)
        }
        // Never the password of OPENPUSH_DATABASE_URL in a log line.
        logger.info(configuration.databaseURL == nil ? "embedded PostgreSQL ready" : "using OPENPUSH_DATABASE_URL",
                    ["db.conninfo": RedactedConninfo.redact(databaseURL)])
        defer {
            if configuration.databaseURL == nil {
                do { try database.stop() } catch { logger.error("stopping PostgreSQL failed", ["error": "\(error)"]) }
            }
        }
        if authority != nil, ProcessInfo.processInfo.environment["OPENPUSH_APNS_PRODUCTION_URL"] != nil {
            throw CommandLineError(message: "--certificate-app needs dev's own APNs simulator: unset the OPENPUSH_APNS_*_URL variables")
        }
        let simulator = try startDevSimulator(&configuration, clientCA: authority, stateDirectory: state)
        defer { simulator?.simulator.stop() }
        let fcm = try startDevFCMSimulator(&configuration)
        let web = try startDevWebPushSimulator(&configuration)
        try await run(configuration, databaseURL: databaseURL, migrate: true, logger: logger) { services, port in
            let demo = try await DevDemoApp.ensure(stateDirectory: state, services: services, fcmServiceAccount: fcm?.account)
            let certificateDemo = try await authority.asyncMap {
                try await DevDemoApp.ensureCertificateApp(stateDirectory: state, services: services, authority: $0)
            }
            say(devBanner(configuration, port: port, demo: demo, simulator: simulator, fcm: fcm?.simulator, web: web)
                + (certificateDemo.map { certificateBanner($0) } ?? ""))
        }
        await fcm?.simulator.stop()
        await web?.simulator.stop()
        await simulator?.control.shutdown()
    }

    /// Unless APNs endpoints are configured, `dev` delivers to a local APNs simulator (h2c, any
    /// provider token accepted) whose control API shows what it received. With `clientCA` (for
    /// the certificate demo app) it runs TLS and verifies client certificates against that CA;
    /// the client trusts the simulator's certificate, written under `stateDirectory`.
    private static func startDevSimulator(_ configuration: inout Configuration, clientCA: LocalCertificateAuthority?,
                                          stateDirectory: String) throws
        -> (simulator: APNSSimulator, control: HTTPServer)?
    {
        let environment = ProcessInfo.processInfo.environment
        guard environment["OPENPUSH_APNS_PRODUCTION_URL"] == nil, environment["OPENPUSH_APNS_DEVELOPMENT_URL"] == nil else {
            return nil
        }
        var settings = APNSSimulator.Configuration(port: 0, acceptAnyToken: true)
        if let clientCA {
            let caPath = stateDirectory + "/apns-client-ca.pem"
            let serverCertificate = stateDirectory + "/apns-simulator.pem"
            try Data(clientCA.certificatePEM.utf8).write(to: URL(fileURLWithPath: caPath), options: .atomic)
            settings.transport = .tls(certificatePath: serverCertificate)
            settings.clientCAPath = caPath
            configuration.apnsCAFile = serverCertificate
        }
        let simulator = try APNSSimulator(settings)
        try simulator.start()
        let control = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 1),
                                 responder: ApnsSimControlResponder(simulator: simulator))
        try control.start()
        configuration.apnsProductionURL = simulator.endpoint
        configuration.apnsDevelopmentURL = simulator.endpoint
        // The simulator also answers Apple's channel management requests.
        configuration.apnsChannelsProductionURL = simulator.endpoint
        configuration.apnsChannelsDevelopmentURL = simulator.endpoint
        return (simulator, control)
    }

    /// The certificate demo app's part of the banner.
    private static func certificateBanner(_ demo: DevDemoApp) -> String {
        let origin = demo.isNew ? "created" : "(from .openpush/\(DevDemoApp.certificateFileName))"
        return "\n\n  certificate demo app \(origin): \(demo.id)\n"
            + "    authenticates with an APNs certificate for \(DevDemoApp.certificateBundleID) (issued by this start's local CA)\n"
            + "    REST API key: \(demo.restKey ?? "(rotated since)")\n"
            + "    SDK key:      \(demo.sdkKey ?? "(rotated since)")"
    }

    /// What `openpush dev` prints once it listens: the keys and a request to try.
    private static func devBanner(_ configuration: Configuration, port: Int, demo: DevDemoApp,
                                  simulator: (simulator: APNSSimulator, control: HTTPServer)?, fcm: FCMSimulator?,
                                  web: (simulator: WebPushSimulator, subscription: DevQuickstart.WebSubscription)?) -> String {
        let organizationKey = configuration.organizationAPIKey ?? ""
        let host = configuration.listenHost.contains(":") ? "[\(configuration.listenHost)]" : configuration.listenHost
        let rotated = "(rotated since; the rotation returned the new value)"
        return """
        OpenPush dev
          organization key (OPENPUSH_ORG_API_KEY): \(organizationKey)
          demo app \(demo.isNew ? "created" : "(from .openpush/demo_app.json)"): \(demo.id)
            REST API key: \(demo.restKey ?? rotated)
            SDK key:      \(demo.sdkKey ?? rotated)
          try: curl -H "Authorization: Key \(organizationKey)" http://\(host):\(port)/apps/\(demo.id)
        """ + (simulator.map { """

          APNs simulator: \($0.simulator.endpoint) — what it accepted: curl http://127.0.0.1:\($0.control.port)/pushes
        """ } ?? "") + (fcm.map { """

          FCM simulator: \($0.endpoint) (token endpoint \($0.tokenURL)) — what it accepted: curl \($0.controlURL ?? "")/messages
        """ } ?? "") + (web.map { """

          Web Push simulator: \($0.simulator.origin) — what it received, decrypted: curl \($0.simulator.controlURL ?? "")/pushes
        """ } ?? "") + "\n" + DevQuickstart(
            baseURL: "http://\(host):\(port)", appID: demo.id, restKey: demo.restKey, sdkKey: demo.sdkKey,
            simulatorControlURL: simulator.map { "http://127.0.0.1:\($0.control.port)" },
            fcmControlURL: fcm?.controlURL, webSubscription: web?.subscription).text
    }

    /// Serves until SIGINT or SIGTERM, then drains: stop accepting, finish in-flight requests,
    /// close the pool.
    /// `started` runs once the server listens, with the port it got.
    private static func run(_ configuration: Configuration, databaseURL: String, migrate: Bool, logger: Logger,
                            started: (Services, Int) async throws -> Void = { _, _ in }) async throws {
        let services = try ServerBootstrap.makeServices(configuration: configuration, databaseURL: databaseURL)
        if migrate {
            try await ServerBootstrap.migrate(services, logger: logger)
        }
        SealedSecrets.checkAtStart(services, logger: logger)
        // Made before requests are served: the channel routes share its APNs client.
        let delivery = configuration.deliveryLoops > 0 ? try ServerBootstrap.makeDeliveryEngine(services, logger: logger) : nil
        let application = OpenPushApplication(services: services, logger: logger)
        let server = try ServerBootstrap.startHTTP(application: application)
        logger.info("listening", ["http.address": "\(configuration.listenHost):\(server.port)"])
        delivery?.0.start()
        let webhooks = configuration.deliveryLoops > 0 ? try ServerBootstrap.makeWebhookDispatcher(services, logger: logger) : nil
        webhooks?.0.start()
        try await started(services, Int(server.port))
        let maintenance = Task { await Maintenance.loop(services, logger: logger) }
        let signal = await TerminationSignal.wait()
        logger.info("shutting down", ["signal": String(signal)])
        maintenance.cancel()
        await server.shutdown()
        await stop(delivery)
        await stop(webhooks)
        await services.apns.shutdown()
        await services.database.close()
        logger.info("stopped")
    }

    /// `openpush worker`: delivers queued pushes, serves no HTTP. It keeps house too (the delivery
    /// record partitions above all), so a deployment of workers alone still rotates them.
    static func worker(_ configuration: Configuration, logger: Logger) async throws {
        let databaseURL = try requireDatabaseURL(configuration)
        let services = try ServerBootstrap.makeServices(configuration: configuration, databaseURL: databaseURL,
                                                        servingHTTP: false)
        SealedSecrets.checkAtStart(services, logger: logger)
        let delivery = try ServerBootstrap.makeDeliveryEngine(services, logger: logger)
        delivery.0.start()
        let webhooks = try ServerBootstrap.makeWebhookDispatcher(services, logger: logger)
        webhooks.0.start()
        logger.info("delivering", ["delivery.loops": String(max(1, configuration.deliveryLoops))])
        let maintenance = Task { await Maintenance.loop(services, logger: logger) }
        let signal = await TerminationSignal.wait()
        logger.info("shutting down", ["signal": String(signal)])
        maintenance.cancel()
        await stop(delivery)
        await stop(webhooks)
        await services.database.close()
        logger.info("stopped")
    }

    /// Webhook attempts in flight finish and record their outcome, then the client's thread ends.
    private static func stop(_ webhooks: (WebhookDispatcher, HTTPClient)?) async {
        guard let (dispatcher, client) = webhooks else { return }
        await dispatcher.stop()
        await client.shutdown()
    }

    /// Batches in flight finish and record their outcomes, then the connections close.
    private static func stop(_ delivery: (DeliveryEngine, APNSClient)?) async {
        guard let (engine, client) = delivery else { return }
        await engine.stop()
        await client.shutdown()
    }

    /// Standard output, unbuffered, so the banner shows even when output goes to a file.
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func requireDatabaseURL(_ configuration: Configuration) throws -> String {
        guard let url = configuration.databaseURL else {
            throw CommandLineError(message: "OPENPUSH_DATABASE_URL is not set (or run `openpush dev` for an embedded database)")
        }
        return url
    }
}

extension Optional {
    /// `map` with an async transform.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
