import APNs
import OpenPushCore

/// The transports of a process: its one APNs client for Apple devices and channel broadcasts,
/// and FCM for Android devices. The engine picks one by token kind; a device job's recipients
/// may be of both services, and `DeviceTransports` sends each part through its own.
struct PushTransports: Sendable {
    var device: DeviceTransports
    var broadcast: APNSBroadcastTransport

    init(client: APNSClient, fcm: FCMDeviceTransport) {
        device = DeviceTransports(apns: APNSDeviceTransport(client: client), fcm: fcm)
        broadcast = APNSBroadcastTransport(client: client)
    }

    func transport(for kind: TokenKind) -> any PushTransport {
        switch kind {
        case .device, .update, .pushToStart, .widget, .voip, .location, .pushToTalk, .complication, .fileProvider: device
        case .channel: broadcast
        }
    }
}

/// Device pushes, each through its device's push service, both at once.
struct DeviceTransports: PushTransport {
    var apns: APNSDeviceTransport
    var fcm: FCMDeviceTransport

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        let services = Set(batch.groups.keys.map(\.service))
        guard services.count > 1 else {
            return services.first == .fcm
                ? await fcm.send(batch, recipients: recipients, lane: lane)
                : await apns.send(batch, recipients: recipients, lane: lane)
        }
        async let apple = apns.send(batch.only(.apns), recipients: recipients, lane: lane)
        let android = await fcm.send(batch.only(.fcm), recipients: recipients, lane: lane)
        var all = await apple
        for (index, outcome) in android.enumerated() where outcome != nil { all[index] = outcome }
        return all
    }
}
