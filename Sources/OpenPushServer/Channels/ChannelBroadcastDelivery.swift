import APNs
import OpenPushCore
import Postgres

/// The worker side of a broadcast: a job whose one recipient is a channel. It builds the
/// broadcast from the stored send, sends it to the push hosts of the channel's environment,
/// and completes the job, recording APNs' answer on the message's broadcast row (the
/// notification view shows it). Passing failures (429, 5xx, no answer) go again under the
/// retry policy; anything else is final.
struct ChannelBroadcastDelivery {
    var services: Services
    var client: APNSClient
    var credential: @Sendable (DeliveryContext.App) -> APNSCredential?
    var worker: String
    var policy: RetryPolicy
    var logger: Logger

    private struct Loaded: Sendable {
        var send: LiveActivitySend
        var timestamp: Int
        var app: DeliveryContext.App
        var environment: DeviceEnvironment
        var cancelled: Bool
    }

    private struct Outcome: Sendable {
        var state: String
        var status: Int?
        var reason: String?
        var requestID: String?
        var uniqueID: String?
        var retry: Bool
    }

    func deliver(_ job: DeliveryJob) async throws {
        guard let recipient = job.recipients.first else { return }
        guard let channelID = recipient.token else { throw InvariantViolation("a channel job holds no channel id") }
        let requestID = APNSIdentifier.derive(messageID: job.messageID, subscriptionID: recipient.subscriptionID,
                                              tokenKind: job.tokenKind.rawValue)
        let outcome: Outcome
        do {
            let loaded = try await services.database.withConnection { try load(job, in: $0) }
            outcome = await send(loaded, job: job, channelID: channelID, requestID: requestID)
        } catch let undecodable as UndecodableMessage {
            outcome = Outcome(state: "error", reason: "MessageFailed: \(undecodable.reason)", retry: false)
        }
        let retryDelay = outcome.retry ? policy.delay(afterAttempt: job.attempt, jitter: Double.random(in: 0..<1)) : nil
        let again = retryDelay != nil
        let completion: DeliveryQueue.Completion = {
            var completion = DeliveryQueue.Completion()
            if again {
                completion.retry = [recipient]
                completion.retryDelay = retryDelay ?? 0
            }
            return completion
        }()
        let final = outcome
        let worker = self.worker
        let completed = try await services.database.transaction { connection -> Bool in
            guard try DeliveryQueue.complete(job, worker: worker, with: completion, in: connection) else { return false }
            try connection.query("""
                UPDATE live_activity_broadcasts
                SET state = \(again ? "queued" : final.state), attempts = \(job.attempt), apns_status = \(final.status),
                    apns_reason = \(final.reason), apns_request_id = COALESCE(\(final.requestID), apns_request_id),
                    apns_unique_id = COALESCE(\(final.uniqueID), apns_unique_id),
                    finished_at = CASE WHEN \(again) THEN NULL ELSE now() END
                WHERE message_id = \(job.messageID)
                """)
            if !again { try MessageLifecycleStore.apply(.jobFinished, messageID: job.messageID, in: connection) }
            return true
        }
        services.metrics.recordPush(kind: job.tokenKind.rawValue, state: again ? "queued" : final.state, reason: final.reason)
        if !completed {
            logger.warning("a broadcast job's lease ran out before it completed", ["job.id": String(job.id)])
        }
    }

    private func send(_ loaded: Loaded, job: DeliveryJob, channelID: String, requestID: String) async -> Outcome {
        if loaded.cancelled { return Outcome(state: "cancelled", retry: false) }
        guard let bundleID = loaded.app.bundleID, !bundleID.isEmpty else {
            return Outcome(state: "error", reason: APNSReason.missingTopic.rawValue, retry: false)
        }
        guard let credential = credential(loaded.app) else {
            return Outcome(state: "error", reason: APNSReason.missingProviderToken.rawValue, retry: false)
        }
        let built = ChannelBroadcast.build(.init(
            send: loaded.send, messageID: job.messageID, apnsChannelID: channelID, bundleID: bundleID,
            autoEndMinutes: loaded.app.autoEndMinutes, onesignalAlias: loaded.app.onesignalAlias, requestID: requestID,
            timestamp: loaded.timestamp, now: services.now()))
        let request: APNSBroadcastRequest
        switch built {
        case .success(let made): request = made
        case .failure(let problem): return Outcome(state: "error", reason: problem.reason.rawValue, retry: false)
        }
        let environment = ChannelAPNs.environment(loaded.environment)
        do {
            let response = try await client.broadcast(request, credential: credential, environment: environment)
            if response.status == 200 {
                return Outcome(state: "accepted", status: 200, requestID: response.requestID, uniqueID: response.apnsUniqueID,
                               retry: false)
            }
            let passing = response.status == 429 || response.status >= 500
            return Outcome(state: "error", status: response.status, reason: response.reason?.rawValue ?? "HTTP \(response.status)",
                           requestID: response.requestID, uniqueID: response.apnsUniqueID, retry: passing)
        } catch {
            return Outcome(state: "error", reason: "Transport: \(error.kind.rawValue)", retry: true)
        }
    }

    private func load(_ job: DeliveryJob, in connection: PostgresConnection) throws -> Loaded {
        guard let row = try connection.query("""
            SELECT m.id, m.event, m.activity_id, m.send::text AS send, m.request::text AS request, m.push_timestamp,
                   m.cancelled_at IS NOT NULL AS cancelled, b.environment,
                   a.id AS app_id, a.apns_bundle_id, a.apns_watch_bundle_id, a.live_activity_auto_end_minutes, a.onesignal_alias,
                   a.apns_p8, a.apns_key_id, a.apns_team_id, extract(epoch FROM a.updated_at)::float8 AS updated_at
            FROM messages m JOIN live_activity_broadcasts b ON b.message_id = m.id JOIN apps a ON a.id = m.app_id
            WHERE m.id = \(job.messageID)
            """).first else { throw UndecodableMessage(messageID: job.messageID, reason: "the broadcast's message is gone") }
        let send = try StoredMessage.liveActivity(row, messageID: job.messageID, event: try row.decode("event"),
                                                  activityID: try row.decode("activity_id"))
        let timestamp: Int64? = try row.decode("push_timestamp")
        let environment: String = try row.decode("environment")
        let app = try DeliveryContext.App(row: row, idColumn: "app_id")
        return Loaded(send: send, timestamp: timestamp.map(Int.init) ?? LiveActivityPayload.nextTimestamp(now: services.now(), previous: nil),
                      app: app, environment: DeviceEnvironment(rawValue: environment) ?? .production,
                      cancelled: try row.decode("cancelled"))
    }
}
