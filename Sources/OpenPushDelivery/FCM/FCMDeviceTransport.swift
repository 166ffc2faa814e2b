import APNs
import Foundation
import HTTPClient
import OpenPushCore
import Synchronization

/// Pushes to Android devices through FCM HTTP v1: each app's pushes go out with an access token
/// of its service account (`FCMAccessTokens`), concurrently over HTTP/2 (h2c prior knowledge on
/// an `http://` FCM URL, TLS with ALPN h2 otherwise) on a few multiplexed connections driven by
/// the APNs client's event loops (an `APNSClient` whose endpoint is the FCM URL, its requests
/// carrying their own `authorization`), each app capped in requests in flight
/// (`AppSendLimiter`), and each answer classified by `FCMAnswer`. The clients and their threads
/// are made on the first send, so a process without Android pushes has none.
struct FCMDeviceTransport: PushTransport {
    struct Settings: Sendable {
        /// Connections to FCM at once, spread over the event loops; HTTP/2 multiplexes requests
        /// on them, as many as FCM's SETTINGS allow.
        var maxConnections = 2
        /// Threads driving those connections.
        var eventLoops = 2
        /// One app's requests in flight at once, across batches: the rest of its pushes wait.
        var appInFlight = 512
        /// Requests handed to the client together (one hand-over, one wake-up, one header
        /// block); an app's share of `appInFlight` is counted in these.
        var window = 64
        /// One request, from waiting for a stream to FCM's answer.
        var requestTimeout: Duration = .seconds(30)

        init() {}
    }

    private let sender: FCMSender

    init(configuration: Configuration, settings: Settings = Settings(), now: @escaping @Sendable () -> Double = systemNow) {
        sender = FCMSender(fcmURL: configuration.fcmURL, tokenURL: configuration.fcmTokenURL, settings: settings, now: now)
    }

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        var all = [PushOutcome?](repeating: nil, count: recipients)
        let connection: FCMSender.Connection
        do {
            connection = try sender.connection()
        } catch {
            for (key, planned) in batch.groups where key.service == .fcm {
                for push in planned { all[Int(push.delivery.id)] = .unanswered(reason: "Transport: \(error)", permanent: false) }
            }
            return all
        }
        await withTaskGroup(of: [(id: Int64, outcome: PushOutcome)].self) { group in
            for (key, planned) in batch.groups where key.service == .fcm {
                guard let account = batch.fcmAccounts[key] else { continue }
                var pushes: [(id: Int64, body: [UInt8])] = []
                pushes.reserveCapacity(planned.count)
                for index in planned.indices {
                    guard case .fcm(let body) = planned[index].request else { continue }
                    pushes.append((planned[index].delivery.id, body))
                }
                let sender = self.sender
                group.addTask {
                    await sender.send(pushes, account: account, app: key.appID, urgent: lane == .urgent, over: connection)
                }
            }
            for await sent in group {
                for (id, outcome) in sent { all[Int(id)] = outcome }
            }
        }
        return all
    }

    /// Ends the clients' threads; requests still waiting or in flight fail as unanswered.
    func shutdown() async {
        await sender.shutdown()
    }
}

/// What the transport shares across copies: the clients made on first use (HTTP/2 for the
/// sends, libcurl for the token exchanges, one an hour per account), the token cache, and the
/// per-app limits.
final class FCMSender: Sendable {
    struct Connection: Sendable {
        var client: APNSClient
        var tokenClient: HTTPClient
        var tokens: FCMAccessTokens
    }

    private enum State {
        case idle
        case open(Connection)
        case shutDown
    }

    /// The FCM URL's scheme and authority (the client's endpoint), and its path, if any, which
    /// every send path starts with.
    let origin: String
    let pathPrefix: String
    let tokenURL: String
    let settings: FCMDeviceTransport.Settings
    let now: @Sendable () -> Double
    let limiter: AppSendLimiter
    private let state = Mutex(State.idle)

    init(fcmURL: String, tokenURL: String, settings: FCMDeviceTransport.Settings, now: @escaping @Sendable () -> Double) {
        (origin, pathPrefix) = Self.split(fcmURL)
        self.tokenURL = tokenURL
        self.settings = settings
        self.now = now
        limiter = AppSendLimiter(perApp: max(1, settings.appInFlight / max(1, settings.window)))
    }

    /// `:path` of a send for the project.
    func sendPath(_ projectID: String) -> String {
        "\(pathPrefix)/v1/projects/\(Self.pathSegment(projectID))/messages:send"
    }

    /// The clients and token cache, made on the first call.
    func connection() throws -> Connection {
        try state.withLock { state in
            switch state {
            case .open(let connection): return connection
            case .shutDown: throw HTTPClientError.shutDown
            case .idle:
                let seconds = settings.requestTimeout.components
                let configuration = APNSClientConfiguration(
                    productionURL: origin, sandboxURL: origin, connectionsPerKey: max(1, settings.maxConnections),
                    eventLoops: max(1, min(settings.eventLoops, settings.maxConnections)),
                    requestTimeout: Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18)
                var channels = configuration
                // No channel hosts for FCM: the same origin, so no TLS context is made for Apple's.
                channels.channelsProductionURL = origin
                channels.channelsSandboxURL = origin
                let client = try APNSClient(configuration: channels)
                let tokenClient: HTTPClient
                do {
                    tokenClient = try HTTPClient(maxHostConnections: 2)
                } catch {
                    Task { await client.shutdown() }
                    throw error
                }
                let connection = Connection(client: client, tokenClient: tokenClient,
                                            tokens: FCMAccessTokens(tokenURL: tokenURL, client: tokenClient))
                state = .open(connection)
                return connection
            }
        }
    }

    func shutdown() async {
        let open = state.withLock { state -> Connection? in
            defer { state = .shutDown }
            if case .open(let connection) = state { return connection }
            return nil
        }
        guard let open else { return }
        await open.client.shutdown()
        await open.tokenClient.shutdown()
    }

    /// One app's pushes: one access token for them all (fetched once, cached across batches),
    /// then sent in windows of `window` requests, at most `appInFlight` of the app's requests
    /// in flight at once (the limiter counts windows).
    func send(_ pushes: [(id: Int64, body: [UInt8])], account: FCMServiceAccount, app: String, urgent: Bool,
              over connection: Connection) async -> [(id: Int64, outcome: PushOutcome)] {
        let token: FCMAccessToken
        do {
            token = try await connection.tokens.token(for: account, now: now())
        } catch {
            let outcome = Self.outcome(tokenError: error)
            return pushes.map { ($0.id, outcome) }
        }
        // The app's turn for streams in the client's queue; urgent ones before every bulk sender.
        let queue = APNSSender(tenant: app, isUrgent: urgent)
        return await limiter.send(pushes.map { ($0.id, $0.body) }, window: settings.window, app: app, urgent: urgent) { bodies in
            await self.deliver(bodies, account: account, token: token, as: queue, over: connection)
        }
    }

    /// A window of pushes; those answered `401`-like, once more with a fresh access token.
    private func deliver(_ bodies: [[UInt8]], account: FCMServiceAccount, token: FCMAccessToken, as queue: APNSSender,
                         over connection: Connection) async -> [PushOutcome] {
        let first = await post(bodies, projectID: account.projectID, token: token, as: queue, client: connection.client)
        var outcomes = first.map(\.outcome)
        let refused = first.indices.filter { first[$0].asksForNewToken }
        guard !refused.isEmpty else { return outcomes }
        await connection.tokens.invalidate(token, for: account)
        let fresh: FCMAccessToken
        do {
            fresh = try await connection.tokens.token(for: account, now: now())
        } catch {
            let outcome = Self.outcome(tokenError: error)
            for index in refused { outcomes[index] = outcome }
            return outcomes
        }
        let second = await post(refused.map { bodies[$0] }, projectID: account.projectID, token: fresh, as: queue, client: connection.client)
        for (index, result) in zip(refused, second) {
            if case .answered(let status, .reauthenticate(let code)) = result {
                // A fresh token refused too: these credentials may not send.
                outcomes[index] = .answered(.init(status: status, verdict: .credentials(APNSReason(code.rawValue)), service: .fcm))
            } else {
                outcomes[index] = result.outcome
            }
        }
        return outcomes
    }

    /// One header block for the window (the access token is the only part that changes), one
    /// body per push.
    private func post(_ bodies: [[UInt8]], projectID: String, token: FCMAccessToken, as queue: APNSSender,
                      client: APNSClient) async -> [FCMSendResult] {
        let fields = [("authorization", "Bearer \(token.value)"), ("content-type", "application/json")]
        return await client.post(bodies, path: sendPath(projectID), fields: fields, sender: queue).map { answer in
            switch answer {
            case .success(let response):
                .answered(status: response.status,
                          FCMAnswer.classify(status: response.status, retryAfter: response.header("retry-after"), body: response.body))
            case .failure(let error):
                .unanswered(error)
            }
        }
    }
}
