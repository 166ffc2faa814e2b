import Foundation
import OpenPushCore

/// How an `APNSClient` reaches APNs. Durations in seconds.
package struct APNSClientConfiguration: Sendable {
    package static let defaultProductionURL = "https://api.push.apple.com"
    package static let defaultSandboxURL = "https://api.sandbox.push.apple.com"
    /// Apple's channel management hosts ("Sending channel management requests to APNs"):
    /// apart from the push hosts, on their own ports.
    package static let defaultChannelsProductionURL = "https://api-manage-broadcast.push.apple.com:2196"
    package static let defaultChannelsSandboxURL = "https://api-manage-broadcast.sandbox.push.apple.com:2195"

    /// `https://…` (TLS, ALPN h2), or `http://…` for cleartext h2c: the local simulator only.
    package var productionURL: String
    package var sandboxURL: String
    /// Channel management (create, read, delete, list) for broadcast Live Activities;
    /// broadcasts themselves go to the push hosts.
    package var channelsProductionURL = defaultChannelsProductionURL
    package var channelsSandboxURL = defaultChannelsSandboxURL
    /// Long-lived connections per (credential, environment).
    package var connectionsPerKey: Int
    /// Threads that drive the connections, each an epoll loop, whatever the number of
    /// credentials. A key's connections are spread over them (so one busy key can use more
    /// than one core); every connection stays on its loop.
    package var eventLoops: Int
    /// Extra PEM CA certificates to trust besides the system store.
    package var caFile: String?
    /// Bounds DNS + TCP connect, and the TLS handshake, each.
    package var connectTimeout: Double
    /// From `send` to the answer, including time waiting for a free stream and retries.
    package var requestTimeout: Double
    /// PING after this long without a frame; the connection is dead if the PING (or the first
    /// SETTINGS) takes longer than `pingTimeout`.
    package var pingInterval: Double
    package var pingTimeout: Double
    /// Streams per connection never exceed this, whatever SETTINGS allow.
    package var maxStreamsPerConnection: Int
    /// Resets and lost connections a request survives (by going out again) before `send`
    /// reports a transport error. Streams refused by GOAWAY are always retried.
    package var maxTransportRetries: Int
    /// Reconnect backoff: `min(cap, base·2^(failures−1))`, jittered into [½, 1] of that.
    package var reconnectBackoffBase: Double
    package var reconnectBackoffCap: Double
    /// A pool (the connections of one credential and environment) with no push waiting or in
    /// flight, and none sent or answered for this long, is closed; the next push reopens it.
    package var idleTimeout: Double
    /// The wall clock, unix seconds: only for the JWT `iat` and its refresh timing (tests
    /// pass a manual one). Defaults to the system clock.
    package var clock: @Sendable () -> Double

    package init(
        productionURL: String = defaultProductionURL,
        sandboxURL: String = defaultSandboxURL,
        connectionsPerKey: Int = 2,
        eventLoops: Int = 2,
        caFile: String? = nil,
        connectTimeout: Double = 10,
        requestTimeout: Double = 30,
        pingInterval: Double = 60,
        pingTimeout: Double = 10,
        maxStreamsPerConnection: Int = 1000,
        maxTransportRetries: Int = 2,
        reconnectBackoffBase: Double = 0.1,
        reconnectBackoffCap: Double = 30,
        idleTimeout: Double = 300,
        clock: (@Sendable () -> Double)? = nil
    ) {
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.connectionsPerKey = connectionsPerKey
        self.eventLoops = eventLoops
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.maxStreamsPerConnection = maxStreamsPerConnection
        self.maxTransportRetries = maxTransportRetries
        self.reconnectBackoffBase = reconnectBackoffBase
        self.reconnectBackoffCap = reconnectBackoffCap
        self.idleTimeout = idleTimeout
        self.clock = clock ?? { Date().timeIntervalSince1970 }
    }

    /// The defaults, with `OPENPUSH_APNS_PRODUCTION_URL`, `OPENPUSH_APNS_DEVELOPMENT_URL` and
    /// `OPENPUSH_APNS_CA_FILE` applied when set and non-empty.
    package static func fromEnvironment(_ environment: [String: String]) -> APNSClientConfiguration {
        var configuration = APNSClientConfiguration()
        if let url = environment["OPENPUSH_APNS_PRODUCTION_URL"], !url.isEmpty { configuration.productionURL = url }
        if let url = environment["OPENPUSH_APNS_DEVELOPMENT_URL"], !url.isEmpty { configuration.sandboxURL = url }
        if let url = environment["OPENPUSH_APNS_CHANNELS_PRODUCTION_URL"], !url.isEmpty { configuration.channelsProductionURL = url }
        if let url = environment["OPENPUSH_APNS_CHANNELS_DEVELOPMENT_URL"], !url.isEmpty { configuration.channelsSandboxURL = url }
        if let file = environment["OPENPUSH_APNS_CA_FILE"], !file.isEmpty { configuration.caFile = file }
        return configuration
    }

    func url(for route: APNSRoute) -> String {
        switch (route.service, route.environment) {
        case (.push, let environment): url(for: environment)
        case (.channels, .production): channelsProductionURL
        case (.channels, .sandbox): channelsSandboxURL
        }
    }

    func url(for environment: APNSEnvironment) -> String {
        switch environment {
        case .production: productionURL
        case .sandbox: sandboxURL
        }
    }

    var stateMachineConfiguration: APNSConnectionStateMachine.Configuration {
        .init(
            maxStreamsCap: maxStreamsPerConnection, pingInterval: pingInterval, pingTimeout: pingTimeout,
            backoffBase: reconnectBackoffBase, backoffCap: reconnectBackoffCap)
    }
}
