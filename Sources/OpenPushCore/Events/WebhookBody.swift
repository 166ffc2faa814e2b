/// A webhook request's body, `{"events": [...]}`, written straight into one byte buffer: the
/// same bytes as `JSONValue.serializedBytes` of that object (keys in the order events are sent:
/// `id`, `type`, `created_at`, `app_id`, `data`), without building a JSON value per event. A
/// member of a job's compact row (`DeliveryEventBatch`) is written from the row's arrays, its
/// `data` field by field as `EventData.delivery` orders it.
package struct WebhookBody: Sendable {
    package private(set) var bytes: [UInt8]
    private var count = 0

    package init(reservingCapacity capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: #"{"events":["#.utf8)
    }

    /// An event whose `data` is a JSON object of its own.
    package mutating func append(id: String, type: String, createdAt: String, appID: String, data: JSONObject) {
        open(id: id, type: type, createdAt: createdAt, appID: appID)
        JSONValue.object(data).write(to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Member `index` of a compact row: `data` is `batch.eventData(at: index)`.
    package mutating func append(id: String, type: String, createdAt: String, appID: String,
                                member index: Int, of batch: DeliveryEventBatch) {
        open(id: id, type: type, createdAt: createdAt, appID: appID)
        bytes.append(UInt8(ascii: "{"))
        field("notification_id", first: true)
        JSONValue.writeString(batch.notificationID, to: &bytes)
        field("subscription_id")
        JSONValue.writeString(batch.subscriptionIDs[index], to: &bytes)
        field("token_kind")
        JSONValue.writeString(batch.tokenKind.rawValue, to: &bytes)
        field("apns_id")
        JSONValue.writeString(batch.apnsIDs[index], to: &bytes)
        if let failures = batch.failures {
            field("reason")
            if let reason = failures.reasons[index] { JSONValue.writeString(reason, to: &bytes) } else { null() }
            field("status")
            if let status = failures.statuses[index] { bytes.append(contentsOf: String(status).utf8) } else { null() }
        }
        bytes.append(contentsOf: "}}".utf8)
    }

    /// The body, closed.
    package consuming func finish() -> [UInt8] {
        bytes.append(contentsOf: "]}".utf8)
        return bytes
    }

    private mutating func open(id: String, type: String, createdAt: String, appID: String) {
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        count += 1
        bytes.append(UInt8(ascii: "{"))
        field("id", first: true)
        JSONValue.writeString(id, to: &bytes)
        field("type")
        JSONValue.writeString(type, to: &bytes)
        field("created_at")
        JSONValue.writeString(createdAt, to: &bytes)
        field("app_id")
        JSONValue.writeString(appID, to: &bytes)
        field("data")
    }

    /// `"key":`, after a comma unless it is the object's first.
    private mutating func field(_ key: String, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: key.utf8)
        bytes.append(contentsOf: "\":".utf8)
    }

    private mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }
}
