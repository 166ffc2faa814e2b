import OpenPushCore

/// Pushes to browsers through Web Push (RFC 8030): each push encrypted for its subscription
/// (RFC 8291) and signed with its app's VAPID key (RFC 8292), posted to the endpoint.
struct WebPushDeviceTransport: PushTransport {
    init(configuration: Configuration) {}

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        var all = [PushOutcome?](repeating: nil, count: recipients)
        for (key, planned) in batch.groups where key.service == .webPush {
            for push in planned {
                all[Int(push.delivery.id)] = .unanswered(reason: "Transport: Web Push is not available yet", permanent: false)
            }
        }
        return all
    }

    func shutdown() async {}
}
