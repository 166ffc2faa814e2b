import OpenPushCore
import Testing

/// A webhook body written straight from compact rows is byte for byte the body the JSON values
/// of its events serialize to, so signatures and receivers see the same thing either way.
@Suite struct WebhookBodyTests {
    static func event(_ id: String, _ type: String, _ createdAt: String, _ appID: String, _ data: JSONObject) -> JSONValue {
        ["id": .string(id), "type": .string(type), "created_at": .string(createdAt), "app_id": .string(appID), "data": .object(data)]
    }

    @Test func membersAndWholeEventsSerializeAsTheirJSONValues() throws {
        var accepted = DeliveryEventBatch(notificationID: "msg_\"quoted\"", tokenKind: .device)
        accepted.append(subscriptionID: "sub_a", apnsID: "A-1")
        accepted.append(subscriptionID: "sub_\\b\n", apnsID: "B-2")
        var failed = DeliveryEventBatch(notificationID: "msg_1", tokenKind: .update, failures: ([], []))
        failed.append(subscriptionID: "sub_c", apnsID: "C-3", failure: ("BadDeviceToken", 400))
        failed.append(subscriptionID: "sub_d", apnsID: "D-4", failure: (nil, nil))
        failed.append(subscriptionID: "sub_é", apnsID: "E-5", failure: ("Unregistered", nil))
        let stamp = "2026-05-01T12:00:00.123Z"
        let click: JSONObject = ["notification_id": "msg_1", "subscription_id": "sub_a", "first": true, "n": 3, "x": .null]

        var body = WebhookBody(reservingCapacity: 16)
        var expected: [JSONValue] = []
        for index in 0..<accepted.count {
            body.append(id: "evt_a_\(index)", type: "delivery.accepted", createdAt: stamp, appID: "app_1", member: index, of: accepted)
            expected.append(Self.event("evt_a_\(index)", "delivery.accepted", stamp, "app_1", accepted.eventData(at: index)))
        }
        body.append(id: "evt_click", type: "click", createdAt: stamp, appID: "app_1", data: click)
        expected.append(Self.event("evt_click", "click", stamp, "app_1", click))
        for index in 0..<failed.count {
            body.append(id: "evt_f_\(index)", type: "delivery.failed", createdAt: stamp, appID: "app_1", member: index, of: failed)
            expected.append(Self.event("evt_f_\(index)", "delivery.failed", stamp, "app_1", failed.eventData(at: index)))
        }
        let bytes = body.finish()
        #expect(bytes == JSONValue.object(["events": .array(expected)]).serializedBytes)
        let parsed = try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
        #expect(parsed.objectValue?["events"]?.arrayValue?.count == 6)
    }

    @Test func anEmptyBodyIsAnEmptyList() {
        #expect(WebhookBody().finish() == JSONValue.object(["events": .array([])]).serializedBytes)
    }
}
