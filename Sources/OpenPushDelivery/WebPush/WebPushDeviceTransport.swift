import HTTPClient
import OpenPushCore

/// Pushes to browsers through Web Push (RFC 8030): each push encrypted for its subscription
/// (RFC 8291, a fresh key and salt each) and signed with its app's VAPID key (RFC 8292, one
/// header per app and origin for hours), posted to the endpoint — HTTP/2 to an `https://` push
/// service, HTTP/1.1 to an `http://` one (allowed only with private endpoints). Each app is
/// capped in requests in flight (`AppSendLimiter`), each endpoint checked again against the
/// push-service hosts, each peer address against the private-address rule, and each answer
/// classified by `WebPushAnswer`. The client and its thread are made on the first send.
struct WebPushDeviceTransport: PushTransport {
    struct Settings: Sendable {
        /// Connections at once to one push-service host; HTTP/2 multiplexes requests on them.
        var maxConnections = 16
        /// One app's requests in flight at once, across batches: the rest of its pushes wait.
        var appInFlight = 512
        /// Requests handed to the HTTP client together; an app's share of `appInFlight` is
        /// counted in these.
        var window = 32
        /// One request, from connecting to the push service's answer.
        var requestTimeout: Duration = .seconds(30)
        /// The most of an answer's body kept (push services answer with little or nothing).
        var maxResponseBytes = 4096
        /// How long one signed `Authorization` header serves an app and origin; its JWT's `exp`
        /// is an hour past that, so never more than 24 h ahead.
        var authorizationLifetime: Double = 12 * 3600
        /// `CURLOPT_RESOLVE` entries (`host:port:address`) for every request: tests make a
        /// push-service name resolve to a chosen address.
        var pinnedAddresses: [String] = []

        init() {}
    }

    private let sender: WebPushSender

    init(configuration: Configuration, settings: Settings = Settings(), now: @escaping @Sendable () -> Double = systemNow) {
        sender = WebPushSender(hosts: configuration.webPushHosts, allowPrivate: configuration.webhooksAllowPrivate,
                               settings: settings, now: now)
    }

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        var all = [PushOutcome?](repeating: nil, count: recipients)
        let client: WebPushSender.Client
        do {
            client = try sender.client()
        } catch {
            for (key, planned) in batch.groups where key.service == .webPush {
                for push in planned { all[Int(push.delivery.id)] = .unanswered(reason: "Transport: \(error)", permanent: false) }
            }
            return all
        }
        await withTaskGroup(of: [(id: Int64, outcome: PushOutcome)].self) { group in
            for (key, planned) in batch.groups where key.service == .webPush {
                var pushes: [(id: Int64, request: WebPushRequest)] = []
                pushes.reserveCapacity(planned.count)
                for push in planned {
                    guard case .webPush(let request) = push.request else { continue }
                    pushes.append((push.delivery.id, request))
                }
                guard let vapidKey = batch.vapidKeys[key] else {
                    for push in pushes {
                        all[Int(push.id)] = .unanswered(reason: "Transport: the app has no VAPID key", permanent: true)
                    }
                    continue
                }
                let sender = self.sender
                group.addTask {
                    await sender.send(pushes, vapidKey: vapidKey, app: key.appID, urgent: lane == .urgent, over: client)
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

    /// Requests of `app` in flight now (tests).
    func inFlight(app: String) -> Int { sender.limiter.inFlight(app: app) }
}
