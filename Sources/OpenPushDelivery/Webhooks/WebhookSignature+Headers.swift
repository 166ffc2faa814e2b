import OpenPushCore

/// The headers a webhook request carries its signature and its endpoint's id in.
extension WebhookSignature {
    static let headerName = "OpenPush-Signature"
    static let webhookIDHeaderName = "OpenPush-Webhook-Id"
}
