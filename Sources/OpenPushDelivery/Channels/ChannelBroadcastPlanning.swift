import APNs
import OpenPushCore
import Postgres

/// Plans a broadcast's job — one recipient, the channel — as the engine plans any job: the
/// broadcast built from the stored send for the push hosts of the channel's environment, or
/// why it is not sent (cancelled, no bundle id or credential, a payload too large, a message
/// that does not decode). The engine sends it through `APNSBroadcastTransport` and records APNs'
/// answer like any push's, on the message's broadcast row (`ChannelBroadcastStore.record`).
enum ChannelBroadcastPlanning {
    static func plan(_ job: DeliveryJob, now: Double, credentials: CredentialCache,
                     in connection: PostgresConnection) throws -> PushBatch {
        guard let delivery = job.deliveries.first, job.recipients.count == 1, job.recipients[0].token != nil else {
            throw InvariantViolation("broadcast job \(job.id) does not hold exactly one channel")
        }
        var batch = PushBatch()
        let loaded: Loaded
        do {
            loaded = try load(job, now: now, in: connection)
        } catch let undecodable as UndecodableMessage {
            // Its row says why, as it says any failure: the message has no other recipient.
            batch.refused.append((delivery, .permanent("MessageFailed: \(undecodable.reason)"), .apns))
            return batch
        }
        if loaded.cancelled {
            batch.refused.append((delivery, .cancelled, .apns))
            return batch
        }
        guard let bundleID = loaded.app.bundleID, !bundleID.isEmpty else {
            batch.refused.append((delivery, .permanent(APNSReason.missingTopic.rawValue), .apns))
            return batch
        }
        let credential: APNSCredential
        switch credentials.lookup(for: loaded.app) {
        case .success(let found?):
            credential = found
        case .success(nil):
            batch.refused.append((delivery, .credentials(CredentialCache.missingReason(for: loaded.app)), .apns))
            return batch
        case .failure(let problem):
            // Held with the app paused, as a device push is: nothing is lost while the key is found.
            batch.refused.append((delivery, .credentials(problem.reason), .apns))
            return batch
        }
        let built = ChannelBroadcast.build(.init(
            send: loaded.send, messageID: job.messageID, apnsChannelID: delivery.token, bundleID: bundleID,
            autoEndMinutes: loaded.app.autoEndMinutes, onesignalAlias: loaded.app.onesignalAlias,
            // The push's apns-id, derived as every push's is: its events carry the same.
            requestID: delivery.apnsID, timestamp: loaded.timestamp, now: now))
        switch built {
        case .success(let request):
            batch.add(PushBatch.Planned(delivery: delivery, request: .apnsBroadcast(request), activityTimestamp: nil),
                      environment: loaded.environment, credential: credential)
        case .failure(let problem):
            batch.refused.append((delivery, .permanent(problem.reason.rawValue), .apns))
        }
        return batch
    }

    private struct Loaded: Sendable {
        var send: LiveActivitySend
        var timestamp: Int
        var app: DeliveryContext.App
        var environment: DeviceEnvironment
        var cancelled: Bool
    }

    private static func load(_ job: DeliveryJob, now: Double, in connection: PostgresConnection) throws -> Loaded {
        guard let row = try connection.query("""
            SELECT m.id, m.event, m.activity_id, m.send::text AS send, m.request::text AS request, m.push_timestamp,
                   m.cancelled_at IS NOT NULL AS cancelled, b.environment,
                   a.id AS app_id, a.apns_bundle_id, a.apns_watch_bundle_id, a.live_activity_auto_end_minutes, a.onesignal_alias,
                   a.apns_p8, a.apns_key_id, a.apns_team_id,
                   CASE WHEN a.apns_auth = 'certificate' THEN a.apns_certificate END AS apns_certificate,
                   extract(epoch FROM a.updated_at)::float8 AS updated_at
            FROM messages m JOIN live_activity_broadcasts b ON b.message_id = m.id JOIN apps a ON a.id = m.app_id
            WHERE m.id = \(job.messageID)
            """).first else { throw UndecodableMessage(messageID: job.messageID, reason: "the broadcast's message is gone") }
        let send = try StoredMessage.liveActivity(row, messageID: job.messageID, event: try row.decode("event"),
                                                  activityID: try row.decode("activity_id"))
        let timestamp: Int64? = try row.decode("push_timestamp")
        let stored: String = try row.decode("environment")
        // Never a default: sent to the other environment's hosts, it would fail there or reach
        // the wrong devices.
        guard let environment = DeviceEnvironment(rawValue: stored) else {
            throw UndecodableMessage(messageID: job.messageID, reason: "the broadcast's environment '\(stored)' is unknown")
        }
        let app = try DeliveryContext.App(row: row, idColumn: "app_id")
        return Loaded(send: send, timestamp: timestamp.map(Int.init) ?? LiveActivityPayload.nextTimestamp(now: now, previous: nil),
                      app: app, environment: environment, cancelled: try row.decode("cancelled"))
    }
}
