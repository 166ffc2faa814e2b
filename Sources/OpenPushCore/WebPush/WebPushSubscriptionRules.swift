/// What a browser subscription is checked against at registration: the deployment's push-service
/// hosts and private-address rule, and the key checks, which need cryptography and so are the
/// caller's (base64url decoding and "is this a point on P-256").
package struct WebPushSubscriptionRules: Sendable {
    package var hosts: [WebPushHostPattern]
    package var allowPrivate: Bool
    package var decodeKey: @Sendable (String) -> [UInt8]?
    package var isPublicKey: @Sendable ([UInt8]) -> Bool

    package init(hosts: [WebPushHostPattern], allowPrivate: Bool, decodeKey: @escaping @Sendable (String) -> [UInt8]?,
                 isPublicKey: @escaping @Sendable ([UInt8]) -> Bool) {
        self.hosts = hosts
        self.allowPrivate = allowPrivate
        self.decodeKey = decodeKey
        self.isPublicKey = isPublicKey
    }
}
