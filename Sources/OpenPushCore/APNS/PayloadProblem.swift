/// Why a push cannot be built. The delivery ends `error` with `reason` and is never sent.
public enum PayloadProblem: Error, Sendable, Hashable {
    /// The serialized payload is over `APNSRequest.maxPayloadBytes`.
    case tooLarge(bytes: Int)

    public var reason: APNSReason {
        switch self {
        case .tooLarge: .payloadTooLarge
        }
    }
}
