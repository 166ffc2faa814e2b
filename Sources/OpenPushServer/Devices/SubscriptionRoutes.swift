import OpenPushDelivery
import HTTPServer

/// Devices: the SDK registers and retires them on the native `/v1` routes; backends read,
/// change and retire them with the REST key.
enum SubscriptionRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/v1/apps/{app_id}/subscriptions", registerDevice)
        router.add(.post, "/v1/apps/{app_id}/subscriptions/retire", retireDevice)
        router.add(.post, "/v1/apps/{app_id}/subscriptions/tokens", registerExtraToken)
        router.add(.post, "/v1/apps/{app_id}/subscriptions/tokens/remove", removeExtraToken)
        router.add(.get, "/apps/{app_id}/subscriptions/{subscription_id}", show)
        router.add(.patch, "/apps/{app_id}/subscriptions/{subscription_id}", update)
        router.add(.delete, "/apps/{app_id}/subscriptions/{subscription_id}", delete)
        router.add(.patch, "/apps/{app_id}/subscriptions/{subscription_id}/owner", transferOwner)
        router.add(.patch, "/apps/{app_id}/subscriptions_by_token/{token_type}/{token}", updateByToken)
        router.add(.post, "/apps/{app_id}/users/by/{alias_label}/{alias_id}/subscriptions", createForUser)
    }
}
