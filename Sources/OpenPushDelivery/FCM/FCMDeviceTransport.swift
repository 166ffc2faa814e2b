import HTTPClient
import OpenPushCore

/// Pushes to Android devices through FCM HTTP v1. (Interface only: the client lands next.)
struct FCMDeviceTransport: PushTransport {
    init(configuration: Configuration) {}

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        var all = [PushOutcome?](repeating: nil, count: recipients)
        for planned in batch.groups.values.joined() {
            all[Int(planned.delivery.id)] = .unanswered(reason: "Transport: FCM is not available yet", permanent: false)
        }
        return all
    }

    /// Ends the client's thread.
    func shutdown() async {}
}
