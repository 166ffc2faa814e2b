import Crypto
import HTTPClient
import OpenPushCore
import Synchronization

/// What the Web Push transport shares across copies: the client made on first use, the VAPID
/// keys and headers signed with them, and the per-app limits.
final class WebPushSender: Sendable {
    typealias Client = HTTPClient

    private enum State {
        case idle
        case open(HTTPClient)
        case shutDown
    }

    let hosts: [WebPushHostPattern]
    let allowPrivate: Bool
    let settings: WebPushDeviceTransport.Settings
    let now: @Sendable () -> Double
    let limiter: AppSendLimiter
    let authorizations: WebPushAuthorizations
    private let state = Mutex(State.idle)

    init(hosts: [WebPushHostPattern], allowPrivate: Bool, settings: WebPushDeviceTransport.Settings,
         now: @escaping @Sendable () -> Double) {
        self.hosts = hosts
        self.allowPrivate = allowPrivate
        self.settings = settings
        self.now = now
        limiter = AppSendLimiter(perApp: max(1, settings.appInFlight / max(1, settings.window)))
        authorizations = WebPushAuthorizations(lifetime: settings.authorizationLifetime)
    }

    /// The client, made on the first call.
    func client() throws -> HTTPClient {
        try state.withLock { state in
            switch state {
            case .open(let client): return client
            case .shutDown: throw HTTPClientError.shutDown
            case .idle:
                let client = try HTTPClient(maxHostConnections: settings.maxConnections)
                state = .open(client)
                return client
            }
        }
    }

    func shutdown() async {
        let open = state.withLock { state -> HTTPClient? in
            defer { state = .shutDown }
            if case .open(let client) = state { return client }
            return nil
        }
        await open?.shutdown()
    }

    /// One app's pushes in windows of `window` requests, at most `appInFlight` of the app's
    /// requests in flight at once (the limiter counts windows).
    func send(_ pushes: [(id: Int64, request: WebPushRequest)], vapidKey: WebPushVAPIDKey, app: String, urgent: Bool,
              over client: HTTPClient) async -> [(id: Int64, outcome: PushOutcome)] {
        await limiter.send(pushes.map { ($0.id, $0.request) }, window: settings.window, app: app, urgent: urgent) { requests in
            await self.deliver(requests, vapidKey: vapidKey, app: app, client: client)
        }
    }

    /// A window of pushes: each checked, encrypted and signed, then all posted at once.
    private func deliver(_ requests: [WebPushRequest], vapidKey: WebPushVAPIDKey, app: String,
                         client: HTTPClient) async -> [PushOutcome] {
        var outcomes = [PushOutcome?](repeating: nil, count: requests.count)
        var posts: [HTTPClientRequest] = []
        posts.reserveCapacity(requests.count)
        var posted: [Int] = []
        posted.reserveCapacity(requests.count)
        let now = self.now()
        var memo = Memo()
        for (index, request) in requests.enumerated() {
            switch prepare(request, vapidKey: vapidKey, app: app, now: now, memo: &memo) {
            case .success(let post):
                posts.append(post)
                posted.append(index)
            case .failure(let refusal):
                outcomes[index] = .unanswered(reason: "Transport: \(refusal.message)", permanent: true)
            }
        }
        for (index, answer) in zip(posted, await client.send(posts)) {
            outcomes[index] = Self.outcome(answer)
        }
        return outcomes.map { $0! }
    }

    /// Why a push was not posted at all: the same every time it is tried.
    struct Refusal: Error {
        var message: String
    }

    static func outcome(_ answer: Result<HTTPClientResponse, HTTPClientError>) -> PushOutcome {
        switch answer {
        case .success(let response):
            let classified = WebPushAnswer.classify(status: response.status, retryAfter: response.header("Retry-After"))
            return .answered(PushOutcome.Answer(
                status: response.status, verdict: classified.verdict, service: .webPush,
                retryAfter: classified.retryAfter.map(Double.init)))
        case .failure(.refusedAddress(let reason)):
            // The endpoint's host resolves to an address it may not reach: the same next time.
            return .unanswered(reason: "Transport: \(reason)", permanent: true)
        case .failure(let error):
            return .unanswered(reason: "Transport: \(error)", permanent: false)
        }
    }
}
