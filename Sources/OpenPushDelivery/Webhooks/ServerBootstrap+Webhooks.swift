package import HTTPClient
package import OpenPushCore

extension ServerBootstrap {
    /// The outbound HTTP client and the webhook dispatcher over it, for every process that runs
    /// workers (`serve` with delivery loops, `worker`).
    package static func makeWebhookDispatcher(_ services: Services, logger: Logger) throws -> (WebhookDispatcher, HTTPClient) {
        let client = try HTTPClient(userAgent: "OpenPush-Webhooks")
        var settings = WebhookDispatcher.Settings()
        settings.allowPrivate = services.configuration.webhooksAllowPrivate
        let dispatcher = WebhookDispatcher(services: services, client: client, settings: settings,
                                           logger: logger.with("component", "webhooks"))
        return (dispatcher, client)
    }
}
