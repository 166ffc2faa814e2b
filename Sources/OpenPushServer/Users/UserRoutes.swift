import OpenPushDelivery
import HTTPServer

/// Users and their aliases, OneSignal's user model, with the REST key. A user is addressed as
/// `/users/by/{alias_label}/{alias_id}`; see `UserLookup` for what each label means.
enum UserRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/users", create)
        router.add(.get, "/apps/{app_id}/users/by/{alias_label}/{alias_id}", show)
        router.add(.patch, "/apps/{app_id}/users/by/{alias_label}/{alias_id}", update)
        router.add(.delete, "/apps/{app_id}/users/by/{alias_label}/{alias_id}", delete)
        router.add(.get, "/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity", showIdentity)
        router.add(.patch, "/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity", addIdentity)
        router.add(.delete, "/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity/{label_to_delete}", deleteIdentity)
        router.add(.get, "/apps/{app_id}/subscriptions/{subscription_id}/user/identity", showSubscriptionIdentity)
        router.add(.patch, "/apps/{app_id}/subscriptions/{subscription_id}/user/identity", addSubscriptionIdentity)
    }
}
