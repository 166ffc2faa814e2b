import OpenPushCore
import OpenPushDelivery
import Postgres

extension SubscriptionStore {
    /// A registration's `hide_details`, in its transaction: set when sent, kept when not (a new
    /// row starts at the column's default, `false`).
    static func applyPrivacy(_ registration: SubscriptionRegistration, subscriptionID: String,
                             in connection: PostgresConnection) throws {
        guard let hideDetails = registration.hideDetails else { return }
        try connection.query("UPDATE subscriptions SET hide_details = \(hideDetails) WHERE id = \(subscriptionID)")
    }
}
