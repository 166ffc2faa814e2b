import APNs
import OpenPushCore

/// Pushes to device tokens (alerts, background, Live Activity, widget) over the process's APNs
/// client. Each app's pushes wait for APNs streams in a queue of their own (urgent ones ahead of
/// its bulk), so a slow APNs does not make one app's backlog another's wait (`APNSSender`).
struct APNSDeviceTransport: PushTransport {
    var client: APNSClient

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        await withTaskGroup(of: (ids: [Int64], results: [Result<APNSResponse, APNSTransportError>]).self) { group in
            for (key, planned) in batch.groups {
                guard let credential = batch.credentials[key] else { continue }
                var pushes: [APNSPush] = []
                var ids: [Int64] = []
                pushes.reserveCapacity(planned.count)
                ids.reserveCapacity(planned.count)
                for index in planned.indices {
                    guard case .apns(let request) = planned[index].request else { continue }
                    pushes.append(APNSPush(deviceToken: planned[index].delivery.token, request: request))
                    ids.append(planned[index].delivery.id)
                }
                let sender = APNSSender(tenant: key.appID, isUrgent: lane == .urgent)
                let environment = APNSEnvironment(key.environment)
                let client = self.client
                group.addTask {
                    (ids, await client.send(pushes, credential: credential, environment: environment, sender: sender))
                }
            }
            var all = [PushOutcome?](repeating: nil, count: recipients)
            for await sent in group {
                for (id, result) in zip(sent.ids, sent.results) { all[Int(id)] = PushOutcome(result) }
            }
            return all
        }
    }
}

extension PushOutcome {
    /// An APNs answer (device push or broadcast) as `APNSResponseClassifier` reads it, or the
    /// transport failure that left it without one.
    init(_ result: Result<APNSResponse, APNSTransportError>) {
        switch result {
        case .success(let response):
            self = .answered(Answer(
                status: response.status,
                verdict: APNSResponseClassifier.classify(status: response.status, reason: response.reason?.rawValue),
                invalidSince: response.timestamp.map { Double($0) / 1000 }, requestID: response.requestID,
                uniqueID: response.apnsUniqueID))
        case .failure(let error):
            self = .unanswered(reason: "Transport: \(error.kind.rawValue)", permanent: error.isPermanent)
        }
    }
}
