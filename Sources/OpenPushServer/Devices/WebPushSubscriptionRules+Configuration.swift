import Crypto
package import OpenPushCore
package import OpenPushDelivery

extension WebPushSubscriptionRules {
    /// The deployment's rules for browser subscriptions: its push-service hosts, its private-address
    /// rule (the webhooks'), and P-256 through OpenSSL.
    package init(_ configuration: Configuration) {
        self.init(hosts: configuration.webPushHosts, allowPrivate: configuration.webhooksAllowPrivate,
                  decodeKey: { Base64URL.decode($0) }, isPublicKey: { P256KeyPair.isValidPublicKey($0) })
    }
}
