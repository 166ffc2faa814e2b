import OpenPushDelivery
import HTTPServer

/// Every route area registers here, in one place, so the route table reads top to bottom.
enum Routes {
    static func registerAll(on router: inout Router<RouteHandler>) {
        OperationsRoutes.register(on: &router)
        DocsRoutes.register(on: &router)
        ConsoleRoutes.register(on: &router)
        WebSDKRoutes.register(on: &router)
        AppsRoutes.register(on: &router)
        WebPushKeyRoutes.register(on: &router)
        SubscriptionRoutes.register(on: &router)
        UserRoutes.register(on: &router)
        SegmentsRoutes.register(on: &router)
        LiveActivityRoutes.register(on: &router)
        OpenedRoutes.register(on: &router)
        LiveActivitySendRoutes.register(on: &router)
        ChannelRoutes.register(on: &router)
        NotificationViewRoutes.register(on: &router)
        NotificationDeliveriesRoutes.register(on: &router)
        NotificationEstimateRoutes.register(on: &router)
        NotificationRoutes.register(on: &router)
        TemplatesRoutes.register(on: &router)
        TenantsRoutes.register(on: &router)
        WebhookRoutes.register(on: &router)
        EventFeedRoutes.register(on: &router)
        StatsRoutes.register(on: &router)
        ExportRoutes.register(on: &router)
        OutcomesRoutes.register(on: &router)
        AuditLogRoutes.register(on: &router)
    }
}
