import APNs
import OpenPushCore

/// Channel broadcasts (iOS 18) over the process's APNs client: one request per channel, on the
/// push hosts of the channel's environment. Its answers are classified as device pushes' are.
struct APNSBroadcastTransport: PushTransport {
    var client: APNSClient

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        var all = [PushOutcome?](repeating: nil, count: recipients)
        for (key, planned) in batch.groups {
            guard let credential = batch.credentials[key] else { continue }
            for push in planned {
                guard case .apnsBroadcast(let request) = push.request else { continue }
                let result: Result<APNSResponse, APNSTransportError>
                do {
                    result = .success(try await client.broadcast(request, credential: credential,
                                                                 environment: APNSEnvironment(key.environment)))
                } catch {
                    result = .failure(error)
                }
                all[Int(push.delivery.id)] = PushOutcome(result)
            }
        }
        return all
    }
}
