import OpenPushCore
import OpenPushDelivery

/// A change may repeat the `id`, `type` and `token` of OneSignal's subscription object (its
/// clients send the object back whole) but never change them: a device's token is changed by the
/// device itself (`previous_token` on `/v1/…/subscriptions`), and a type names a platform.
enum SubscriptionIdentity {
    static func requireSame(_ fields: OneSignalSubscriptionFields, as subscription: SubscriptionRecord) throws(APIError) {
        var problems: [String] = []
        if let id = fields.id, id != subscription.id {
            problems.append("subscription.id '\(id)' is not this subscription's id")
        }
        if let type = fields.type, !type.matches(platform: subscription.platform) {
            problems.append("subscription.type cannot change: this subscription is \(subscription.oneSignalType)")
        }
        if let token = fields.token,
           !DeviceToken.names(token, stored: subscription.token, service: PushService(platform: subscription.platform)) {
            problems.append("subscription.token cannot change here: the device registers its new token "
                            + "with previous_token on POST /v1/apps/{app_id}/subscriptions")
        }
        if !problems.isEmpty { throw APIError(status: 400, messages: problems) }
    }
}
