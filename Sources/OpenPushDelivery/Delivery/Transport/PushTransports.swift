import APNs
import OpenPushCore

/// The transports of a process, over its one APNs client; the engine picks one by token kind.
struct PushTransports: Sendable {
    var device: APNSDeviceTransport
    var broadcast: APNSBroadcastTransport

    init(client: APNSClient) {
        device = APNSDeviceTransport(client: client)
        broadcast = APNSBroadcastTransport(client: client)
    }

    func transport(for kind: TokenKind) -> any PushTransport {
        switch kind {
        case .device, .update, .pushToStart, .widget: device
        case .channel: broadcast
        }
    }
}
