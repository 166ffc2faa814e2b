import APNs
import OpenPushCore

/// One job's pushes, planned: grouped by the credential and endpoint they go out with, and
/// those refused before sending (with why).
struct PushBatch: Sendable {
    /// One credential and endpoint: the pushes of one app to one environment.
    struct GroupKey: Hashable, Sendable {
        var appID: String
        var environment: DeviceEnvironment
    }

    /// A push ready for its transport.
    struct Planned: Sendable {
        var delivery: ClaimedDelivery
        var request: Request
        /// The `aps.timestamp` sent to this activity row, to remember once accepted.
        var activityTimestamp: (activityID: String, timestamp: Int)?
    }

    /// The request, in its transport's terms.
    enum Request: Sendable {
        /// A push to one device token.
        case apns(APNSRequest)
        /// A broadcast to every device subscribed to a channel.
        case apnsBroadcast(APNSBroadcastRequest)
    }

    var groups: [GroupKey: [Planned]] = [:]
    var credentials: [GroupKey: APNSCredential] = [:]
    var refused: [(ClaimedDelivery, DeliveryPlanner.Refusal)] = []
    /// Delivery id → the dedupe claim its push holds (`AlertDedupe`).
    var dedupeClaims: [Int64: AlertDedupe.Claim] = [:]

    mutating func add(_ planned: Planned, environment: DeviceEnvironment, credential: APNSCredential) {
        let key = GroupKey(appID: planned.delivery.appID, environment: environment)
        if credentials[key] == nil { credentials[key] = credential }
        groups[key, default: []].append(planned)
    }
}
