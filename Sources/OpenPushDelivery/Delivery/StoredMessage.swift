import OpenPushCore
import Postgres

/// A stored message that no longer decodes: its message fails loudly, never silently.
struct UndecodableMessage: Error, CustomStringConvertible {
    var messageID: String
    var reason: String
    var description: String { "message \(messageID) does not decode: \(reason)" }
}

/// The validated send of a stored message, as the workers read it: the canonical form in
/// `messages.send` (`StoredSend`), or — for a row written before that column — its `request`
/// parsed as it was then. Anything that does not decode is an `UndecodableMessage`.
enum StoredMessage {
    /// The columns a reader selects: the stored send, and the request only where there is none.
    static let columns: PostgresQuery = """
        send::text AS send, CASE WHEN send IS NULL THEN request::text END AS legacy_request
        """

    static func notification(_ row: PostgresRow, messageID: String) throws -> NotificationSend {
        if let stored: String = try row.decode("send") {
            return try decoded(messageID) { () throws(StoredSendError) in
                try StoredSend.decodeNotification(try StoredSend.parse(stored))
            }
        }
        return try parsedLegacy(NotificationSendParser.parse(try legacyRequest(row, messageID: messageID)), messageID: messageID)
    }

    /// `event` and `activityID` are the row's own columns; a stored send must agree with them.
    static func liveActivity(_ row: PostgresRow, messageID: String, event: String?, activityID: String?) throws -> LiveActivitySend {
        if let stored: String = try row.decode("send") {
            let send = try decoded(messageID) { () throws(StoredSendError) in
                try StoredSend.decodeLiveActivity(try StoredSend.parse(stored))
            }
            guard send.event.rawValue == event, send.activityID == activityID else {
                throw UndecodableMessage(messageID: messageID, reason: "the stored send's event or activity id differs from its message's")
            }
            return send
        }
        let request = try legacyRequest(row, messageID: messageID)
        switch event {
        case "start": return try parsedLegacy(LiveActivitySendParser.parseStart(request), messageID: messageID)
        case "update", "end":
            guard let activityID else { throw UndecodableMessage(messageID: messageID, reason: "an update or end without an activity id") }
            return try parsedLegacy(LiveActivitySendParser.parseUpdateOrEnd(request, activityID: activityID), messageID: messageID)
        default:
            throw UndecodableMessage(messageID: messageID, reason: "unknown event \(event ?? "null")")
        }
    }

    private static func decoded<Value>(_ messageID: String, _ decode: () throws(StoredSendError) -> Value) throws -> Value {
        do {
            return try decode()
        } catch {
            throw UndecodableMessage(messageID: messageID, reason: error.reason)
        }
    }

    private static func legacyRequest(_ row: PostgresRow, messageID: String) throws -> JSONObject {
        guard let text: String = try row.decode("legacy_request"),
              let request = (try? JSONValue.parse(text))?.objectValue else {
            throw UndecodableMessage(messageID: messageID, reason: "the stored request is not a JSON object")
        }
        return request
    }

    private static func parsedLegacy<Value>(_ result: Result<Value, InvalidInput>, messageID: String) throws -> Value {
        switch result {
        case .success(let value): return value
        case .failure(let error): throw UndecodableMessage(messageID: messageID, reason: error.messages.joined(separator: "; "))
        }
    }
}
