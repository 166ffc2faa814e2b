import APNs
import OpenPushCore

/// One job's pushes, planned: grouped by the credential and endpoint they go out with, and
/// those refused before sending (with why).
struct PushBatch: Sendable {
    /// One credential and endpoint: the pushes of one app to one push service (and, for APNs,
    /// one environment; FCM and Web Push have no environments, so their pushes use `.production`).
    struct GroupKey: Hashable, Sendable {
        var appID: String
        var environment: DeviceEnvironment
        var service: PushService = .apns
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
        /// An FCM HTTP v1 send to one Android device's registration token: its request body
        /// (`FCMMessage.serializedBytes`, the token inside).
        case fcm(body: [UInt8])
        /// A Web Push to one browser subscription's endpoint, encrypted by the transport.
        case webPush(WebPushRequest)
    }

    var groups: [GroupKey: [Planned]] = [:]
    var credentials: [GroupKey: APNSCredential] = [:]
    /// Each FCM group's service account (the app's, opened from its sealed column).
    var fcmAccounts: [GroupKey: FCMServiceAccount] = [:]
    /// Each Web Push group's VAPID key and subject (the app's).
    var vapidKeys: [GroupKey: WebPushVAPIDKey] = [:]
    /// With the push service each would have gone to (its subscription's), which `/metrics` and
    /// the stats count it under.
    var refused: [(delivery: ClaimedDelivery, refusal: DeliveryPlanner.Refusal, service: PushService)] = []
    /// Delivery id → the dedupe claim its push holds (`AlertDedupe`).
    var dedupeClaims: [Int64: AlertDedupe.Claim] = [:]

    mutating func add(_ planned: Planned, environment: DeviceEnvironment, credential: APNSCredential) {
        let key = GroupKey(appID: planned.delivery.appID, environment: environment)
        if credentials[key] == nil { credentials[key] = credential }
        groups[key, default: []].append(planned)
    }

    mutating func add(_ planned: Planned, fcmAccount: FCMServiceAccount) {
        let key = GroupKey(appID: planned.delivery.appID, environment: .production, service: .fcm)
        if fcmAccounts[key] == nil { fcmAccounts[key] = fcmAccount }
        groups[key, default: []].append(planned)
    }

    mutating func add(_ planned: Planned, vapidKey: WebPushVAPIDKey) {
        let key = GroupKey(appID: planned.delivery.appID, environment: .production, service: .webPush)
        if vapidKeys[key] == nil { vapidKeys[key] = vapidKey }
        groups[key, default: []].append(planned)
    }

    /// The part of the batch that goes through `service`; its refusals and dedupe claims stay here.
    func only(_ service: PushService) -> PushBatch {
        var part = PushBatch()
        part.groups = groups.filter { $0.key.service == service }
        part.credentials = credentials.filter { $0.key.service == service }
        part.fcmAccounts = fcmAccounts.filter { $0.key.service == service }
        part.vapidKeys = vapidKeys.filter { $0.key.service == service }
        return part
    }
}
