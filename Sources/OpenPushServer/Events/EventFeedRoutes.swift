import HTTPServer
import OpenPushCore

/// `GET /apps/{app_id}/events`: the app's events of the last `EventOutbox.retentionDays` days in
/// order, for backends that cannot take inbound HTTP. The same events, with the same ids, as the
/// webhooks send — except `ping`s, which are one endpoint's.
enum EventFeedRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/apps/{app_id}/events", list)
    }

    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "read the event feed")
        let request = try EventFeedRequest.read(context.request.query)
        let events = try await EventFeed.page(appID: principal.app.id, request: request, now: context.services.now(),
                                              in: context.services.database)
        return .json([
            "events": .array(events.map(\.json)),
            "next_cursor": .string(request.nextCursor(last: events.last?.position)),
            "has_more": .bool(events.count == request.limit),
        ])
    }
}
