import Foundation
import HTTPClient
import OpenPushCore
import Synchronization

/// Pushes to Android devices through FCM HTTP v1: each app's pushes go out with an access token
/// of its service account (`FCMAccessTokens`), concurrently over HTTP/2 (h2c prior knowledge on
/// an `http://` FCM URL, TLS otherwise) on a few multiplexed connections, each app capped in
/// requests in flight (`FCMSendLimiter`), and each answer classified by `FCMAnswer`. The client
/// and its thread are made on the first send, so a process without Android pushes has none.
struct FCMDeviceTransport: PushTransport {
    struct Settings: Sendable {
        /// Connections to FCM at once; HTTP/2 multiplexes requests on them.
        var maxConnections = 8
        /// One app's requests in flight at once, across batches: the rest of its pushes wait.
        var appInFlight = 256
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
                var pushes: [(id: Int64, message: FCMMessage)] = []
                pushes.reserveCapacity(planned.count)
                for index in planned.indices {
                    guard case .fcm(let message) = planned[index].request else { continue }
                    pushes.append((planned[index].delivery.id, message))
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
    let limiter: FCMSendLimiter
    private let state = Mutex(State.idle)

    init(fcmURL: String, tokenURL: String, settings: FCMDeviceTransport.Settings, now: @escaping @Sendable () -> Double) {
        let base = fcmURL.hasSuffix("/") ? String(fcmURL.dropLast()) : fcmURL
        sendURL = { projectID in "\(base)/v1/projects/\(FCMSender.pathSegment(projectID))/messages:send" }
        self.tokenURL = tokenURL
        self.settings = settings
        self.now = now
        limiter = FCMSendLimiter(perApp: settings.appInFlight)
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
    /// then each push sent on its own, at most `appInFlight` of the app's at once.
    func send(_ pushes: [(id: Int64, message: FCMMessage)], account: FCMServiceAccount, app: String, urgent: Bool,
              over connection: Connection) async -> [(id: Int64, outcome: PushOutcome)] {
        let token: FCMAccessToken
        do {
            token = try await connection.tokens.token(for: account, now: now())
        } catch {
            let outcome = Self.outcome(tokenError: error)
            return pushes.map { ($0.id, outcome) }
        }
        let width = min(pushes.count, settings.appInFlight)
        return await withTaskGroup(of: (id: Int64, outcome: PushOutcome).self) { group in
            var results: [(id: Int64, outcome: PushOutcome)] = []
            results.reserveCapacity(pushes.count)
            var next = 0
            func addNext() {
                let push = pushes[next]
                next += 1
                group.addTask {
                    await self.limiter.acquire(app: app, urgent: urgent)
                    let outcome = await self.deliver(push.message, account: account, token: token, over: connection)
                    self.limiter.release(app: app)
                    return (push.id, outcome)
                }
            }
            while next < width { addNext() }
            for await result in group {
                results.append(result)
                if next < pushes.count { addNext() }
            }
            return results
        }
    }

    /// One push; after a `401`-like answer, once more with a fresh access token.
    private func deliver(_ message: FCMMessage, account: FCMServiceAccount, token: FCMAccessToken,
                         over connection: Connection) async -> PushOutcome {
        let first = await post(message, projectID: account.projectID, token: token, client: connection.client)
        guard case .answered(_, .reauthenticate) = first else { return first.outcome }
        await connection.tokens.invalidate(token, for: account)
        let fresh: FCMAccessToken
        do {
            fresh = try await connection.tokens.token(for: account, now: now())
        } catch {
            return Self.outcome(tokenError: error)
        }
        let second = await post(message, projectID: account.projectID, token: fresh, client: connection.client)
        if case .answered(let status, .reauthenticate(let code)) = second {
            // A fresh token refused too: these credentials may not send.
            return .answered(.init(status: status, verdict: .credentials(APNSReason(code.rawValue)), service: .fcm))
        }
        return second.outcome
    }

    private func post(_ message: FCMMessage, projectID: String, token: FCMAccessToken, client: HTTPClient) async -> FCMSendResult {
        let request = HTTPClientRequest(
            url: sendURL(projectID), method: "POST",
            headers: [("Authorization", "Bearer \(token.value)"), ("Content-Type", "application/json")],
            body: message.serializedBytes, timeout: settings.requestTimeout, httpVersion: .http2,
            responseHeaders: ["Retry-After"])
        do {
            let response = try await client.send(request)
            return .answered(status: response.status,
                             FCMAnswer.classify(status: response.status, retryAfter: response.header("Retry-After"), body: response.body))
        } catch {
            return .unanswered(error)
        }
    }
}
