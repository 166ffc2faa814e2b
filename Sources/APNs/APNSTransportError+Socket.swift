import EventLoop
import OpenPushCore

extension APNSTransportError {
    /// A socket or lookup failure of the runtime, as the client reports it: same kind, same message.
    init(_ error: SocketError) {
        switch error.kind {
        case .connectFailed: self.init(.connectFailed, error.message)
        case .connectionLost: self.init(.connectionLost, error.message)
        }
    }
}
