import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `GET /notifications/{notification_id}/deliveries?app_id=…`: a message's per-device records,
/// for support. Authenticated and scoped exactly like `GET /notifications/{notification_id}`.
enum NotificationDeliveriesRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/notifications/{notification_id}/deliveries", list)
    }

    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await NotificationViewRoutes.reader(context)
        let request = try DeliveryListRequest.read(context.request.query)
        let messageID = context.pathParameter("notification_id")
        let page = try await NotificationService.deliveries(messageID: messageID, principal: principal, request: request,
                                                            database: context.services.database)
        guard let page else { throw APIError.notFound("notification '\(messageID)' not found") }
        return .json([
            "deliveries": .array(page.records.map(\.json)),
            "next_cursor": page.nextAfter.map { .string($0.cursor) } ?? .null,
            "remaining": .int(Int64(page.remaining)),
        ])
    }
}

extension NotificationDeliveriesStore.Record {
    var json: JSONValue {
        var object: JSONObject = [
            "subscription_id": .string(subscriptionID),
            "platform": platform.map(JSONValue.string) ?? .null,
            "token_kind": .string(tokenKind.rawValue),
            "state": .string(state.rawValue),
            // The policy's reason of a `suppressed` record is its own field, not an error.
            "error_reason": state == .suppressed ? .null : errorReason.map(JSONValue.string) ?? .null,
            "suppressed_reason": state == .suppressed ? errorReason.map(JSONValue.string) ?? .null : .null,
            "carried_by": carriedBy.map(JSONValue.string) ?? .null,
            "apns_id": .string(apnsID),
            "apns_status": apnsStatus.map { .int(Int64($0)) } ?? .null,
            "fcm_message_name": fcmMessageName.map(JSONValue.string) ?? .null,
            "attempts": .int(Int64(attempts)),
            "live_activity_id": liveActivityID.map(JSONValue.string) ?? .null,
            "finished_at": .int(finishedAt),
            "clicked_at": clickedAt.map(JSONValue.int) ?? .null,
        ]
        // Only sandbox answers carry one: absent, not null, for every other record.
        if let apnsUniqueID { object["apns_unique_id"] = .string(apnsUniqueID) }
        return .object(object)
    }
}
