/// Why a push cannot be built. The delivery ends `error` with `reason` and is never sent.
package enum PayloadProblem: Error, Sendable, Hashable {
    /// The serialized payload is over `APNSRequest.maxPayloadBytes`.
    case tooLarge(bytes: Int)

    package var reason: APNSReason {
        switch self {
        case .tooLarge: .payloadTooLarge
        }
    }
}
