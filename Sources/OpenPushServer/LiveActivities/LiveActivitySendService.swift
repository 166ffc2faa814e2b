import OpenPushCore
import OpenPushDelivery
import Postgres

/// The two server sends of Live Activities — start across an audience, update or end an
/// activity id's holders — each under the send routes' rate limit and in one transaction holding
/// the app's send lock (`SendTransaction`), queued by `MessageEnqueue`. A refusal rolls the
/// message and its timestamp back.
enum LiveActivitySendService {
    static let startRetention: Double = IdempotencyStore.liveActivityRetention

    static func start(_ parsed: Result<LiveActivitySend, APIError>, request: JSONObject, activityType: String,
                      principal: RESTPrincipal, now: Double, database: PostgresPool) async throws -> SendOutcome {
        let appID = principal.app.id
        return try await SendTransaction.run(appID: appID, now: now, database: database) { connection in
            let send = try parsed.get()
            let key = send.idempotencyKey.map {
                IdempotentRequest(appID: appID, scope: IdempotencyStore.liveActivityStart,
                                  caller: IdempotencyStore.caller(tenantID: principal.tenantID), key: $0, retention: startRetention)
            }
            let outcome = try IdempotentRequest.run(key, now: now, in: connection) { () throws -> (SendOutcome, IdempotentResponse) in
                guard let targeting = send.targeting else { throw InvariantViolation("a parsed start has targeting") }
                let targeted = try AudienceResolver.targeted(targeting, appID: appID, tenantID: principal.tenantID, now: now,
                                                              in: connection)
                let audience = LiveActivityAudience.startable(targeted: targeted.idQuery, appID: appID, activityType: activityType)
                let timestamp = try MessageStore.nextActivityTimestamp(appID: appID, activityID: send.activityID, now: now,
                                                                       in: connection)
                let queued = try MessageEnqueue.enqueue(.init(
                    appID: appID, send: .liveActivity(send), event: .start, name: send.name, activityType: activityType,
                    activityID: send.activityID, request: request, tenantID: principal.tenantID, pushTimestamp: timestamp),
                    to: .liveActivity(audience: audience, tokenKind: .pushToStart), now: now, in: connection)
                guard queued.audience.total > 0 else { throw APIError.badRequest(SendMessages.nobodyStartable(activityType)) }
                let body: JSONValue = ["notification_id": .string(queued.messageID)]
                return (.created(status: 201, body: body, audienceTotal: queued.audience.total,
                                 audienceSent: queued.audience.queued),
                        IdempotentResponse(status: 201, body: body, messageID: queued.messageID))
            }
            switch outcome {
            case .answered(let created): return created
            case .replayed(let first): return .replayed(status: first.status, body: first.body)
            }
        }
    }

    static func updateOrEnd(_ parsed: Result<LiveActivitySend, APIError>, request: JSONObject, activityID: String,
                            principal: RESTPrincipal, now: Double, database: PostgresPool) async throws -> SendOutcome {
        let appID = principal.app.id
        return try await SendTransaction.run(appID: appID, now: now, database: database) { connection in
            let send = try parsed.get()
            let holders = LiveActivityAudience.holders(appID: appID, activityID: activityID, event: send.event,
                                                       tenantID: principal.tenantID, now: now)
            let types = try LiveActivityStore.holdersActivityTypes(holders, in: connection)
            guard types.count <= 1 else { throw APIError.badRequest(SendMessages.multipleActivityTypes) }
            let timestamp = try MessageStore.nextActivityTimestamp(appID: appID, activityID: activityID, now: now, in: connection)
            let queued = try MessageEnqueue.enqueue(.init(
                appID: appID, send: .liveActivity(send), event: send.event, name: send.name, activityType: types.first,
                activityID: activityID, request: request, tenantID: principal.tenantID, pushTimestamp: timestamp),
                to: .liveActivity(audience: holders, tokenKind: .update), now: now, in: connection)
            // Nothing open: the refusal rolls the message and its timestamp back.
            guard queued.audience.total > 0 else {
                try TenantAccess.requireNotForeignActivity(activityID, appID: appID, tenantID: principal.tenantID,
                                                           in: connection)
                throw APIError.notFound(SendMessages.nothingOpen)
            }
            if send.event == .end {
                try LiveActivityStore.endQueued(messageID: queued.messageID, now: now, in: connection)
                try PushIntervals.endQueued(messageID: queued.messageID, appID: appID, timestamp: timestamp, in: connection)
            }
            return .created(status: 201, body: ["id": .string(queued.messageID)], audienceTotal: queued.audience.total,
                            audienceSent: queued.audience.queued)
        }
    }
}
