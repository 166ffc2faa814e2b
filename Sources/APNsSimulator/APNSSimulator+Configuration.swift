package import Foundation

extension APNSSimulator {
    package struct Configuration: Sendable {
        /// How clients reach the simulator.
        package enum Transport: Sendable, Equatable {
            /// HTTP/2 over cleartext with prior knowledge (h2c): an `http://` endpoint.
            case cleartext
            /// TLS with ALPN `h2` and a fresh self-signed certificate for `localhost`,
            /// `127.0.0.1` and `::1`, written as PEM to `certificatePath` (if given) for
            /// clients to trust; also readable from `APNSSimulator.certificatePEM`.
            case tls(certificatePath: String?)
        }

        /// A numeric IPv4 or IPv6 address.
        package var host: String
        /// 0 picks an ephemeral port; read it back from `APNSSimulator.port` after `start()`.
        package var port: UInt16
        package var transport: Transport
        /// PEM CA certificates that client certificates are verified against (TLS only). With it
        /// the simulator asks each client for a certificate: a connection that presents one
        /// that verifies pushes without a provider token, to the certificate's topics only.
        package var clientCAPath: String?
        /// Key id → DER SubjectPublicKeyInfo of the provider's P-256 key (what
        /// `P256SigningKey.publicKeyDER` gives for a `.p8`).
        package var providerKeys: [String: [UInt8]]
        /// Skips the provider-token checks altogether, a missing token included (quick dev use,
        /// load tests).
        package var acceptAnyToken: Bool
        /// Bundle ids topics may name (after removing the push type's suffix); `nil` = any.
        package var bundleIDs: Set<String>?
        /// Announced in SETTINGS_MAX_CONCURRENT_STREAMS.
        package var maxConcurrentStreams: UInt32
        /// Like APNs, announce one stream until the first request passes the token check on a
        /// connection, then `maxConcurrentStreams`.
        package var rampsUpStreams: Bool
        /// The delay of the built-in "slow" prefix (`5105`).
        package var slowDelay: Duration
        /// Caps how many pushes a second the simulator answers, over all its connections, like
        /// a congested APNs: a push over the cap waits for its turn (in arrival order) instead of
        /// being refused, holding its stream meanwhile. `nil`: as fast as it can.
        /// (`APNSSimulatorRateLimit`; its record's `receivedAt` is then when it was answered.)
        package var maxRate: Double?
        /// Accepted pushes kept for `accepted()`; the oldest go first beyond this.
        package var recordLimit: Int
        /// Wall-clock time, for provider-token ages and recorded times (a parameter for tests).
        package var now: @Sendable () -> Date
        /// Plays APNs' sandbox (development) endpoint, whose answers carry `apns-unique-id`. One
        /// simulator serves one URL and cannot tell which environment a client meant, so it is told.
        package var sandbox: Bool

        package init(
            host: String = "127.0.0.1",
            port: UInt16 = 0,
            transport: Transport = .cleartext,
            clientCAPath: String? = nil,
            providerKeys: [String: [UInt8]] = [:],
            acceptAnyToken: Bool = false,
            bundleIDs: Set<String>? = nil,
            maxConcurrentStreams: UInt32 = 1000,
            rampsUpStreams: Bool = false,
            slowDelay: Duration = .seconds(1),
            maxRate: Double? = nil,
            recordLimit: Int = 50_000,
            now: @escaping @Sendable () -> Date = { Date() },
            sandbox: Bool = false
        ) {
            self.host = host
            self.port = port
            self.transport = transport
            self.clientCAPath = clientCAPath
            self.providerKeys = providerKeys
            self.acceptAnyToken = acceptAnyToken
            self.bundleIDs = bundleIDs
            self.maxConcurrentStreams = maxConcurrentStreams
            self.rampsUpStreams = rampsUpStreams
            self.slowDelay = slowDelay
            self.maxRate = maxRate
            self.recordLimit = recordLimit
            self.now = now
            self.sandbox = sandbox
        }
    }
}
