package import APNs
package import APNsSimulator
import Crypto
import Foundation
import OpenPushCore
package import OpenPushDelivery
package import OpenPushServer

/// An application, the local APNs simulator, an APNs client pointed at it and a delivery engine:
/// everything a delivery test needs, in process.
package struct DeliveryHarness: Sendable {
    package let app: TestApp
    package let simulator: APNSSimulator
    package let client: APNSClient
    package let engine: DeliveryEngine
    /// An app whose `.p8` the simulator knows, so its pushes pass the JWT check.
    package let created: CreatedApp
    /// That app's `.p8`, to put back after a test swaps it.
    package let p8: String
    package static let bundleID = "com.example.delivery"

    /// `configure` adjusts the application's configuration after it is pointed at the simulator
    /// (for example to open the `/apps` routes with an organization key); `now` is the
    /// application's clock, which the delivery engine plans by (`ManualClock.source` to move it).
    /// With `clientCertificates`, the simulator runs TLS and trusts that CA's client
    /// certificates (`TestCertificates`), and the client and application trust the simulator.
    package static func make(settings: DeliveryEngine.Settings = quickSettings(), conninfo: String? = nil,
                            clientCertificates: TestCertificates? = nil,
                            configure: @escaping (inout Configuration) -> Void = { _ in },
                            now: @escaping @Sendable () -> Double = WallClock.now) async throws -> DeliveryHarness {
        let pem = try P256SigningKey.generatePEM()
        let key = try P256SigningKey(pem: pem)
        let serverCertificate = clientCertificates.map { $0.directory + "/simulator.pem" }
        // Over TLS, a peer that hangs up must be an error, not SIGPIPE ending the process.
        if serverCertificate != nil { signal(SIGPIPE, SIG_IGN) }
        let simulator = try APNSSimulator(.init(
            port: 0, transport: serverCertificate.map { .tls(certificatePath: $0) } ?? .cleartext,
            clientCAPath: clientCertificates?.caPath, providerKeys: ["KEYID00001": key.publicKeyDER], recordLimit: 200_000))
        try simulator.start()
        let pointAtSimulator: (inout Configuration) -> Void = {
            $0.apnsCAFile = serverCertificate
            $0.apnsProductionURL = simulator.endpoint
            $0.apnsDevelopmentURL = simulator.endpoint
            $0.apnsChannelsProductionURL = simulator.endpoint
            $0.apnsChannelsDevelopmentURL = simulator.endpoint
            configure(&$0)
        }
        let app = if let conninfo {
            try TestApp.make(conninfo: conninfo, configure: pointAtSimulator, now: now)
        } else {
            try await TestApp.make(configure: pointAtSimulator, now: now)
        }
        var clientSettings = APNSClientConfiguration(productionURL: simulator.endpoint, sandboxURL: simulator.endpoint,
                                                     caFile: serverCertificate, requestTimeout: 10)
        // The process's one client: the channel routes manage channels with it too.
        clientSettings.channelsProductionURL = simulator.endpoint
        clientSettings.channelsSandboxURL = simulator.endpoint
        let client = try APNSClient(configuration: clientSettings)
        let engine = DeliveryEngine(services: app.services, client: client, settings: settings, logger: .discarding())
        let created = try await app.createApp(AppSettings(name: "Delivery", apnsP8: pem, apnsKeyID: "KEYID00001",
                                                          apnsTeamID: "TEAM000001", apnsBundleID: bundleID))
        return DeliveryHarness(app: app, simulator: simulator, client: client, engine: engine, created: created, p8: pem)
    }

    /// Short leases and retries so that tests of expiry and backoff take seconds.
    package static func quickSettings() -> DeliveryEngine.Settings {
        var settings = DeliveryEngine.Settings()
        settings.jobSize = 500
        settings.loops = 1
        settings.leaseSeconds = 3
        settings.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.2, maxDelay: 1)
        return settings
    }

    /// Runs batches until nothing is claimable right now.
    @discardableResult
    package func drain() async throws -> Int {
        var total = 0
        while true {
            let handled = try await engine.runOnce()
            guard handled > 0 else { return total }
            total += handled
        }
    }

    package func shutdown() async {
        await engine.stop()
        await client.shutdown()
        await app.services.apns.shutdown()
        simulator.stop()
    }
}
