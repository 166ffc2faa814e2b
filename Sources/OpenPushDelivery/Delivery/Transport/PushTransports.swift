import APNs
import OpenPushCore

/// The transports of a process: its one APNs client for Apple devices and channel broadcasts,
/// FCM for Android devices and Web Push for browsers. The engine picks one by token kind; a
/// device job's recipients may be of every service, and `DeviceTransports` sends each part
/// through its own.
struct PushTransports: Sendable {
    var device: DeviceTransports
    var broadcast: APNSBroadcastTransport

    init(client: APNSClient, fcm: FCMDeviceTransport, webPush: WebPushDeviceTransport) {
        device = DeviceTransports(apns: APNSDeviceTransport(client: client), fcm: fcm, webPush: webPush)
        broadcast = APNSBroadcastTransport(client: client)
    }

    func transport(for kind: TokenKind) -> any PushTransport {
        switch kind {
        case .device, .update, .pushToStart, .widget, .voip, .location, .pushToTalk, .complication, .fileProvider: device
        case .channel: broadcast
        }
    }
}

/// Device pushes, each through its device's push service, all at once.
struct DeviceTransports: PushTransport {
    var apns: APNSDeviceTransport
    var fcm: FCMDeviceTransport
    var webPush: WebPushDeviceTransport

    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        let services = Set(batch.groups.keys.map(\.service))
        if services.count <= 1 {
            return await send(batch, through: services.first ?? .apns, recipients: recipients, lane: lane)
        }
        return await withTaskGroup(of: [PushOutcome?].self) { group in
            for service in services {
                let part = batch.only(service)
                group.addTask { await send(part, through: service, recipients: recipients, lane: lane) }
            }
            var all = [PushOutcome?](repeating: nil, count: recipients)
            for await outcomes in group {
                for (index, outcome) in outcomes.enumerated() where outcome != nil { all[index] = outcome }
            }
            return all
        }
    }

    private func send(_ batch: PushBatch, through service: PushService, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?] {
        switch service {
        case .apns: await apns.send(batch, recipients: recipients, lane: lane)
        case .fcm: await fcm.send(batch, recipients: recipients, lane: lane)
        case .webPush: await webPush.send(batch, recipients: recipients, lane: lane)
        }
    }
}
