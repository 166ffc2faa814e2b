/// A job's `delivery.accepted` (or `delivery.failed`) events stored as one outbox row, so a
/// fan-out writes one row per job rather than one per device (migration 0034). The row's `data`
/// holds what its events share (`notification_id`, `token_kind`) once, and what differs as
/// parallel arrays (`subscription_ids`; for failures `reasons` and `statuses`). Each member's
/// `apns-id` is derived from (notification, subscription, token kind), as the push's was, so
/// the row does not store them: readers derive them (`init(data:failed:derivingAPNSID:)`).
/// Rows written before this still hold `apns_ids`, and those are read as they are.
/// The feed and the webhooks expand it: member `i` is the event `EventData.delivery(…)` builds
/// for the i-th record, with id `eventID(rowID:index:)` and position (xid, seq, i).
package struct DeliveryEventBatch: Sendable, Equatable {
    package var notificationID: String
    package var tokenKind: TokenKind
    package var subscriptionIDs: [String]
    package var apnsIDs: [String]
    /// `delivery.failed` only (nil for `delivery.accepted`): each member's reason and APNs status.
    package var failures: (reasons: [String?], statuses: [Int?])?

    package init(notificationID: String, tokenKind: TokenKind, subscriptionIDs: [String] = [], apnsIDs: [String] = [],
                failures: (reasons: [String?], statuses: [Int?])? = nil) {
        self.notificationID = notificationID
        self.tokenKind = tokenKind
        self.subscriptionIDs = subscriptionIDs
        self.apnsIDs = apnsIDs
        self.failures = failures
    }

    package var count: Int { subscriptionIDs.count }
    package var isEmpty: Bool { subscriptionIDs.isEmpty }

    /// Adds one delivery's event; `failure` for a `delivery.failed` batch.
    package mutating func append(subscriptionID: String, apnsID: String, failure: (reason: String?, status: Int?)? = nil) {
        subscriptionIDs.append(subscriptionID)
        apnsIDs.append(apnsID)
        if let failure {
            var failures = self.failures ?? ([], [])
            failures.reasons.append(failure.reason)
            failures.statuses.append(failure.status)
            self.failures = failures
        }
    }

    /// The id of member `index` of the row whose id is `rowID` (`evt_…`): unique, and the same
    /// in the feed and the webhooks, so receivers dedupe on it.
    package static func eventID(rowID: String, index: Int) -> String {
        "\(rowID)_\(index)"
    }

    /// The `data` stored in the row.
    package var data: JSONObject {
        var data: JSONObject = [
            "notification_id": .string(notificationID), "token_kind": .string(tokenKind.rawValue),
            "subscription_ids": .array(subscriptionIDs.map(JSONValue.string)),
        ]
        if let failures {
            data["reasons"] = .array(failures.reasons.map { $0.map(JSONValue.string) ?? .null })
            data["statuses"] = .array(failures.statuses.map { $0.map { .int(Int64($0)) } ?? .null })
        }
        return data
    }

    /// How a member's `apns-id` follows from (notification id, subscription id, token kind).
    package typealias APNSIDDerivation = @Sendable (_ notificationID: String, _ subscriptionID: String, _ tokenKind: TokenKind) -> String

    /// Reads a stored row's `data` (`failed`: a `delivery.failed` row); nil when it is not one
    /// `data` wrote (a missing field, an unknown token kind, arrays of different lengths). Rows
    /// without `apns_ids` (all since they were left out) get each member's from `derive`.
    package init?(data: JSONObject, failed: Bool, derivingAPNSID derive: APNSIDDerivation) {
        guard let notificationID = data["notification_id"]?.stringValue,
              let tokenKind = data["token_kind"]?.stringValue.flatMap(TokenKind.init(rawValue:)),
              let subscriptionIDs = Self.strings(data["subscription_ids"])
        else { return nil }
        let apnsIDs: [String]
        if let stored = data["apns_ids"] {
            guard let strings = Self.strings(stored), strings.count == subscriptionIDs.count else { return nil }
            apnsIDs = strings
        } else {
            apnsIDs = subscriptionIDs.map { derive(notificationID, $0, tokenKind) }
        }
        self.init(notificationID: notificationID, tokenKind: tokenKind, subscriptionIDs: subscriptionIDs, apnsIDs: apnsIDs)
        if failed {
            guard let reasons = data["reasons"]?.arrayValue, let statuses = data["statuses"]?.arrayValue,
                  reasons.count == subscriptionIDs.count, statuses.count == subscriptionIDs.count
            else { return nil }
            failures = (reasons.map(\.stringValue), statuses.map { $0.intValue.map { Int($0) } })
        }
    }

    /// Member `index`'s event data, as `EventData.delivery` builds it for a single event.
    package func eventData(at index: Int) -> JSONObject {
        EventData.delivery(notificationID: notificationID, subscriptionID: subscriptionIDs[index], tokenKind: tokenKind,
                           apnsID: apnsIDs[index], failure: failures.map { ($0.reasons[index], $0.statuses[index]) })
    }

    private static func strings(_ value: JSONValue?) -> [String]? {
        guard let array = value?.arrayValue else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for element in array {
            guard let string = element.stringValue else { return nil }
            strings.append(string)
        }
        return strings
    }

    package static func == (lhs: DeliveryEventBatch, rhs: DeliveryEventBatch) -> Bool {
        lhs.notificationID == rhs.notificationID && lhs.tokenKind == rhs.tokenKind && lhs.subscriptionIDs == rhs.subscriptionIDs
            && lhs.apnsIDs == rhs.apnsIDs && lhs.failures?.reasons == rhs.failures?.reasons
            && lhs.failures?.statuses == rhs.failures?.statuses
    }
}
