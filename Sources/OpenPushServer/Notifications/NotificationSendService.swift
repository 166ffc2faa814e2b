import Crypto
import OpenPushCore
import OpenPushDelivery
import Postgres

/// Creating a notification (`POST /notifications`): the template joins the body, the send is
/// validated, and in one transaction the idempotency key is checked, the audience tested for
/// anyone to send to, and the message queued (`MessageEnqueue`): with its jobs when it names its
/// audience outright and is due now (`ImmediateExpansion`), else for the workers to expand.
enum NotificationSendService {
    static let noRecipients = "All included players are not subscribed"
    static let twoIdempotencyKeys = "the Idempotency-Key header and the body's idempotency_key must be the same key when both are given"

    struct Created: Sendable {
        var body: JSONValue
        var replayed: Bool
    }

    /// `header` is the `Idempotency-Key` header as read, refused only once the body is valid.
    /// `webPushSubject`: `OPENPUSH_WEB_PUSH_SUBJECT`, the subject of an app that names none.
    static func create(body: JSONObject, header: Result<String?, APIError>, principal: RESTPrincipal, now: Double,
                       webPushSubject: String? = nil, database: PostgresPool) async throws -> Created {
        let appID = principal.app.id
        // The template's fields join the body before it is validated; the stored request shows them.
        let request = try await TemplateStore.applied(to: body, appID: appID, in: database)
        let send = try NotificationSendParser.parse(request).get()
        let key = try idempotency(header: header.get(), body: send.idempotencyKey).map {
            // The body as sent: a repeat replays the first answer even if its template changed since.
            IdempotentRequest(appID: appID, scope: $0.scope, caller: IdempotencyStore.caller(tenantID: principal.tenantID),
                              key: $0.value, retention: $0.retention, digest: SHA256.hash(JSONValue.object(body).serializedBytes))
        }
        return try await database.transaction { connection -> Created in
            let outcome = try IdempotentRequest.run(key, now: now, in: connection) { () throws -> (JSONValue, IdempotentResponse) in
                let nobody: JSONValue = ["id": "", "errors": [.string(noRecipients)]]
                let empty = (nobody, IdempotentResponse(status: 200, body: nobody, messageID: nil))
                if send.excludesEveryService { return empty }
                let targeted = try AudienceResolver.targeted(send.targeting, appID: appID, tenantID: principal.tenantID,
                                                             now: now, in: connection)
                try NotificationStore.checkWebPush(send, targeted: targeted, appID: appID, defaultSubject: webPushSubject, in: connection)
                let message = MessageStore.NewMessage(appID: appID, send: .notification(send), name: send.name, request: request,
                                                      tenantID: principal.tenantID)
                let messageID: String
                if ImmediateExpansion.applies(to: send, now: now) {
                    // Zero rows written is the empty audience: nothing was stored.
                    guard let written = try MessageEnqueue.enqueueExpanded(message, send: send, targeted: targeted, now: now,
                                                                           in: connection) else { return empty }
                    messageID = written
                } else {
                    if try NotificationAudience.isEmpty(targeted: targeted, appID: appID, kind: send.kind,
                                                        excluding: send.excludedServices, browsers: send.excludedBrowsers, in: connection) {
                        return empty
                    }
                    messageID = try MessageEnqueue.enqueue(message, to: .expandedLater, now: now, in: connection).messageID
                }
                let response: JSONValue = ["id": .string(messageID)]
                return (response, IdempotentResponse(status: 200, body: response, messageID: messageID))
            }
            switch outcome {
            case .answered(let body): return Created(body: body, replayed: false)
            case .replayed(let first): return Created(body: first.body, replayed: true)
            }
        }
    }

    /// The key a create is idempotent under: the body's `idempotency_key` (or `external_id`),
    /// kept 30 days as OneSignal does, or the `Idempotency-Key` header, kept 24 hours. Both may
    /// be given only when they are the same key (compared as UUIDs).
    static func idempotency(header: String?, body: String?) throws(APIError) -> IdempotencyKey? {
        if let body {
            if let header, UUIDText.canonical(header) != body { throw APIError.badRequest(twoIdempotencyKeys) }
            return IdempotencyKey(value: body, scope: NotificationStore.bodyIdempotencyScope,
                                  retention: NotificationStore.bodyIdempotencyRetention)
        }
        return header.map {
            IdempotencyKey(value: $0, scope: NotificationStore.idempotencyScope, retention: NotificationStore.idempotencyRetention)
        }
    }

    struct IdempotencyKey {
        var value: String
        var scope: String
        var retention: Double
    }
}
