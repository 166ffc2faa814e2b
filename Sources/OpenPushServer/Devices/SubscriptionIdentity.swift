import OpenPushCore
import OpenPushDelivery

/// A change may repeat the `id`, `type` and `token` of OneSignal's subscription object (its
/// clients send the object back whole). The id and the type never change (a type names a
/// platform). The token changes only by id, as OneSignal's `update_subscription` does
/// (`SubscriptionTokenChange`); the by-token route names the device by it, so there it must be
/// the device's own.
enum SubscriptionIdentity {
    static func requireSame(_ fields: OneSignalSubscriptionFields, as subscription: SubscriptionRecord,
                            tokenMayChange: Bool) throws(APIError) {
        var problems: [String] = []
        if let id = fields.id, id != subscription.id {
            problems.append("subscription.id '\(id)' is not this subscription's id")
        }
        if let type = fields.type, !type.matches(platform: subscription.platform) {
            problems.append("subscription.type cannot change: this subscription is \(subscription.oneSignalType)")
        }
        if !tokenMayChange, let token = fields.token,
           !DeviceToken.names(token, stored: subscription.token, service: PushService(platform: subscription.platform)) {
            problems.append("subscription.token cannot change on the route that names the device by its token: "
                            + "send it to PATCH /apps/{app_id}/subscriptions/{subscription_id}")
        }
        if !problems.isEmpty { throw APIError(status: 400, messages: problems) }
    }

    /// The new token a change by id moves the device to, checked (refused input is a `400`
    /// through `APIError.answering`); nil when it keeps its own.
    static func tokenChange(_ fields: OneSignalSubscriptionFields, of subscription: SubscriptionRecord,
                            rules: WebPushSubscriptionRules) throws(InvalidInput) -> SubscriptionTokenChange? {
        try SubscriptionTokenChange.read(fields, stored: subscription.token, service: PushService(platform: subscription.platform),
                                         browser: subscription.webType.flatMap(WebPushBrowser.init(oneSignalType:)), rules: rules)
    }
}
