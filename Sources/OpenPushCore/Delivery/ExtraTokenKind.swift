/// A device's extra APNs tokens beside its ordinary one, each from its own framework (PushKit
/// and friends), registered with `POST /v1/apps/{app_id}/subscriptions/tokens` and sent to with
/// `apns_push_type_override`. Apple gives each its own push type and topic.
package enum ExtraTokenKind: String, Sendable, Hashable, CaseIterable {
    case voip
    case location
    case pushToTalk = "pushtotalk"
    case complication
    case fileProvider = "fileprovider"

    /// The `apns-push-type` its pushes carry.
    package var pushType: APNSPushType {
        switch self {
        case .voip: .voip
        case .location: .location
        case .pushToTalk: .pushToTalk
        case .complication: .complication
        case .fileProvider: .fileProvider
        }
    }

    /// What follows the bundle id in `apns-topic` (the complication's base is the watch app's
    /// bundle id when the app has one).
    package var topicSuffix: String {
        switch self {
        case .voip: ".voip"
        case .location: ".location-query"
        case .pushToTalk: ".voip-ptt"
        case .complication: ".complication"
        case .fileProvider: ".pushkit.fileprovider"
        }
    }
}
