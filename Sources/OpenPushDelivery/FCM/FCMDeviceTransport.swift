import Foundation
import HTTPClient
import OpenPushCore
import Synchronization

/// Pushes to Android devices through FCM HTTP v1: each app's pushes go out with an access token
/// of its service account (`FCMAccessTokens`), concurrently over HTTP/2 (h2c prior knowledge on
/// an `http://` FCM URL, TLS otherwise) on a few multiplexed connections, each app capped in
/// requests in flight (`AppSendLimiter`), and each answer classified by `FCMAnswer`. The client
/// and its thread are made on the first send, so a process without Android pushes has none.
struct FCMDeviceTransport: PushTransport {
    struct Settings: Sendable {
        /// Connections to FCM at once; HTTP/2 multiplexes requests on them.
        var maxConnections = 8
        /// One app's requests in flight at once, across batches: the rest of its pushes wait.
        var appInFlight = 512
        /// Requests handed to the HTTP client together (one hand-over, one wake-up, one
        /// header list); an app's share of `appInFlight` is counted in these.
        var window = 32
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

    /// Ends the client's thread (requests in flight finish first).
    func shutdown() async {
        await sender.shutdown()
    }
}

/// What the transport shares across copies: the client made on first use, the token cache
/// over it, and the per-app limits.
final class FCMSender: Sendable {
    struct Connection: Sendable {
        var client: HTTPClient
        var tokens: FCMAccessTokens
    }

    private enum State {
        case idle
        case open(Connection)
        case shutDown
    }

    let sendURL: @Sendable (_ projectID: String) -> String
    let tokenURL: String
    let settings: FCMDeviceTransport.Settings
    let now: @Sendable () -> Double
    let limiter: AppSendLimiter
    private let state = Mutex(State.idle)

    init(fcmURL: String, tokenURL: String, settings: FCMDeviceTransport.Settings, now: @escaping @Sendable () -> Double) {
        let base = fcmURL.hasSuffix("/") ? String(fcmURL.dropLast()) : fcmURL
        sendURL = { projectID in "\(base)/v1/projects/\(FCMSender.pathSegment(projectID))/messages:send" }
        self.tokenURL = tokenURL
        self.settings = settings
        self.now = now
        limiter = AppSendLimiter(perApp: max(1, settings.appInFlight / max(1, settings.window)))
    }

    /// The client and token cache, made on the first call.
    func connection() throws -> Connection {
        try state.withLock { state in
            switch state {
            case .open(let connection): return connection
            case .shutDown: throw HTTPClientError.shutDown
            case .idle:
                let client = try HTTPClient(maxHostConnections: settings.maxConnections)
                let connection = Connection(client: client, tokens: FCMAccessTokens(tokenURL: tokenURL, client: client))
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
        await open?.client.shutdown()
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
        let size = max(1, settings.window)
        let windows = stride(from: 0, to: pushes.count, by: size).map { $0..<min($0 + size, pushes.count) }
        let width = min(windows.count, limiter.perApp)
        return await withTaskGroup(of: [(id: Int64, outcome: PushOutcome)].self) { group in
            var results: [(id: Int64, outcome: PushOutcome)] = []
            results.reserveCapacity(pushes.count)
            var next = 0
            func addNext() {
                let window = pushes[windows[next]]
                next += 1
                group.addTask {
                    await self.limiter.acquire(app: app, urgent: urgent)
                    let outcomes = await self.deliver(window.map(\.body), account: account, token: token, over: connection)
                    self.limiter.release(app: app)
                    return zip(window, outcomes).map { ($0.id, $1) }
                }
            }
            while next < width { addNext() }
            for await sent in group {
                results.append(contentsOf: sent)
                if next < windows.count { addNext() }
            }
            return results
        }
    }

    /// A window of pushes; those answered `401`-like, once more with a fresh access token.
    private func deliver(_ bodies: [[UInt8]], account: FCMServiceAccount, token: FCMAccessToken,
                         over connection: Connection) async -> [PushOutcome] {
        let first = await post(bodies, projectID: account.projectID, token: token, client: connection.client)
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
        let second = await post(refused.map { bodies[$0] }, projectID: account.projectID, token: fresh, client: connection.client)
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

    private func post(_ bodies: [[UInt8]], projectID: String, token: FCMAccessToken, client: HTTPClient) async -> [FCMSendResult] {
        let request = HTTPClientRequest(
            url: sendURL(projectID), method: "POST",
            headers: [("Authorization", "Bearer \(token.value)"), ("Content-Type", "application/json")],
            timeout: settings.requestTimeout, httpVersion: .http2, responseHeaders: ["Retry-After"])
        return await client.send(bodies, as: request).map { answer in
            switch answer {
            case .success(let response):
                .answered(status: response.status,
                          FCMAnswer.classify(status: response.status, retryAfter: response.header("Retry-After"), body: response.body))
            case .failure(let error):
                .unanswered(error)
            }
        }
    }
}
