import HTTPServer
import OpenPushCore
import Postgres

/// The two server send routes: start, and update or end, across an audience. They answer in
/// OneSignal's `{"errors": […]}` shape, share one rate limit, and only queue deliveries: the
/// workers send them after the transaction commits.
enum LiveActivitySendRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/activities/activity/{activity_type}", start)
        router.add(.post, "/apps/{app_id}/live_activities/{activity_id}/notifications", updateOrEnd)
    }

    @Sendable static func start(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let appID = principal.app.id
        let activityType = context.pathParameter("activity_type")
        let body = Result { try context.jsonObject() }.mapError { $0 as? APIError ?? .badRequest(SendMessages.bodyMustBeObject) }
        let parsed = body.flatMap { LiveActivitySendParser.parseStart($0).mapError(APIError.init) }
        let now = context.services.now()
        let outcome = try await SendTransaction.run(appID: appID, now: now, database: context.services.database) { connection in
            let send = try parsed.get()
            if let key = send.idempotencyKey,
               let first = try IdempotencyStore.find(appID: appID, scope: IdempotencyStore.liveActivityStart,
                                                     caller: IdempotencyStore.caller(tenantID: principal.tenantID), key: key,
                                                     notBefore: now - IdempotencyStore.liveActivityRetention, in: connection) {
                return .replayed(status: first.status, body: first.body)
            }
            guard let targeting = send.targeting else { throw InvariantViolation("a parsed start has targeting") }
            let targeted = try AudienceResolver.targeted(targeting, appID: appID, tenantID: principal.tenantID, now: now,
                                                          in: connection)
            let audience = LiveActivityAudience.startable(targeted: targeted.idQuery, appID: appID, activityType: activityType)
            let timestamp = try MessageStore.nextActivityTimestamp(appID: appID, activityID: send.activityID, now: now, in: connection)
            let messageID = try MessageStore.insert(.init(
                appID: appID, kind: "live_activity", event: .start, name: send.name, activityType: activityType,
                activityID: send.activityID, request: (try? body.get()) ?? [:], send: send,
                tenantID: principal.tenantID, pushTimestamp: timestamp),
                now: now, in: connection)
            // The audience is read once, counted and queued together; nobody to start rolls the
            // message and its timestamp back with the refusal.
            let queued = try MessageStore.queueLiveActivity(messageID: messageID, appID: appID, tokenKind: .pushToStart,
                                                            audience: audience, in: connection)
            guard queued.total > 0 else { throw APIError.badRequest(SendMessages.nobodyStartable(activityType)) }
            try MessageStore.recordAudience(queued, messageID: messageID, in: connection)
            try MessageStore.notifyWorkers(appID: appID, in: connection)
            let response: JSONValue = ["notification_id": .string(messageID)]
            if let key = send.idempotencyKey {
                try IdempotencyStore.save(appID: appID, scope: IdempotencyStore.liveActivityStart,
                                          caller: IdempotencyStore.caller(tenantID: principal.tenantID), key: key,
                                          response: IdempotentResponse(status: 201, body: response, messageID: messageID),
                                          now: now, in: connection)
            }
            return .created(status: 201, body: response, audienceTotal: queued.total, audienceSent: queued.queued)
        }
        return try outcome.response()
    }

    @Sendable static func updateOrEnd(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let appID = principal.app.id
        let activityID = context.pathParameter("activity_id")
        let body = Result { try context.jsonObject() }.mapError { $0 as? APIError ?? .badRequest(SendMessages.bodyMustBeObject) }
        let parsed = body.flatMap { LiveActivitySendParser.parseUpdateOrEnd($0, activityID: activityID).mapError(APIError.init) }
        let now = context.services.now()
        let outcome = try await SendTransaction.run(appID: appID, now: now, database: context.services.database) { connection in
            let send = try parsed.get()
            let holders = LiveActivityAudience.holders(appID: appID, activityID: activityID, event: send.event,
                                                       tenantID: principal.tenantID, now: now)
            let types = try connection.query("""
                SELECT DISTINCT h.activity_type FROM (\(holders)) AS h WHERE h.activity_type IS NOT NULL
                """)
            guard types.count <= 1 else { throw APIError.badRequest(SendMessages.multipleActivityTypes) }
            let timestamp = try MessageStore.nextActivityTimestamp(appID: appID, activityID: activityID, now: now, in: connection)
            let messageID = try MessageStore.insert(.init(
                appID: appID, kind: "live_activity", event: send.event, name: send.name,
                activityType: try types.first?.decode("activity_type", as: String.self), activityID: activityID,
                request: (try? body.get()) ?? [:], send: send,
                tenantID: principal.tenantID, pushTimestamp: timestamp),
                now: now, in: connection)
            let queued = try MessageStore.queueLiveActivity(messageID: messageID, appID: appID, tokenKind: .update,
                                                            audience: holders, in: connection)
            // Nothing open: the refusal rolls the message and its timestamp back.
            guard queued.total > 0 else {
                try TenantAccess.requireNotForeignActivity(activityID, appID: appID, tenantID: principal.tenantID,
                                                           in: connection)
                throw APIError.notFound(SendMessages.nothingOpen)
            }
            try MessageStore.recordAudience(queued, messageID: messageID, in: connection)
            if send.event == .end {
                // An accepted end closes the rows it goes to: nothing can update them again.
                let ended = try connection.query("""
                    UPDATE live_activities
                    SET ended_at = to_timestamp(\(now)), ended_reason = 'remote', updated_at = to_timestamp(\(now))
                    WHERE id IN (SELECT unnest(live_activity_ids) FROM delivery_jobs WHERE message_id = \(messageID))
                      AND ended_at IS NULL
                    RETURNING app_id, subscription_id, activity_id
                    """)
                try LiveActivityEvents.appendEnded(Array(ended), cause: .remote, in: connection)
                try PushIntervals.endQueued(messageID: messageID, appID: appID, timestamp: timestamp, in: connection)
            }
            try MessageStore.notifyWorkers(appID: appID, in: connection)
            return .created(status: 201, body: ["id": .string(messageID)], audienceTotal: queued.total, audienceSent: queued.queued)
        }
        return try outcome.response()
    }
}
