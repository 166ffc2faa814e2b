import OpenPushCore
import Testing

/// A job's delivery events as one stored row, and the events it expands into.
@Suite struct DeliveryEventBatchTests {
    /// Stands in for the server's derivation: a member's apns-id from what the push was.
    static let derive: DeliveryEventBatch.APNSIDDerivation = { "\($0)/\($1)/\($2.rawValue)" }

    static func accepted() -> DeliveryEventBatch {
        var batch = DeliveryEventBatch(notificationID: "msg_1", tokenKind: .device)
        batch.append(subscriptionID: "sub_a", apnsID: "msg_1/sub_a/device")
        batch.append(subscriptionID: "sub_b", apnsID: "msg_1/sub_b/device")
        return batch
    }

    static func read(_ data: JSONObject, failed: Bool) -> DeliveryEventBatch? {
        DeliveryEventBatch(data: data, failed: failed, derivingAPNSID: derive)
    }

    /// The apns-ids are not stored: read back, each is derived from its member.
    @Test func membersExpandIntoTheEventsSingleRowsCarried() throws {
        let batch = Self.accepted()
        #expect(batch.count == 2)
        #expect(batch.data == ["notification_id": "msg_1", "token_kind": "device", "subscription_ids": ["sub_a", "sub_b"]])
        let read = try #require(Self.read(batch.data, failed: false))
        #expect(read == batch)
        #expect(read.eventData(at: 1) == EventData.delivery(notificationID: "msg_1", subscriptionID: "sub_b",
                                                            tokenKind: .device, apnsID: "msg_1/sub_b/device"))
    }

    /// A row written while the apns-ids were stored is read with its own.
    @Test func rowsThatStoreTheirAPNSIDsAreReadWithThem() throws {
        var data = Self.accepted().data
        data["apns_ids"] = ["A-1", "B-2"]
        let read = try #require(Self.read(data, failed: false))
        #expect(read.apnsIDs == ["A-1", "B-2"])
        #expect(read.eventData(at: 0)["apns_id"] == "A-1")
    }

    @Test func failuresCarryTheirReasonAndStatus() throws {
        var batch = DeliveryEventBatch(notificationID: "msg_1", tokenKind: .update, failures: ([], []))
        batch.append(subscriptionID: "sub_a", apnsID: "msg_1/sub_a/update", failure: ("BadDeviceToken", 400))
        batch.append(subscriptionID: "sub_b", apnsID: "msg_1/sub_b/update", failure: (nil, nil))
        #expect(batch.data["reasons"] == ["BadDeviceToken", .null])
        #expect(batch.data["statuses"] == [400, .null])
        let read = try #require(Self.read(batch.data, failed: true))
        #expect(read == batch)
        #expect(read.eventData(at: 0) == EventData.delivery(notificationID: "msg_1", subscriptionID: "sub_a", tokenKind: .update,
                                                            apnsID: "msg_1/sub_a/update", failure: ("BadDeviceToken", 400)))
        #expect(read.eventData(at: 1)["reason"] == .null)
        #expect(read.eventData(at: 1)["status"] == .null)
        // A failed row without its failures is not one OpenPush wrote.
        #expect(Self.read(Self.accepted().data, failed: true) == nil)
    }

    @Test func memberIDsAreTheRowsIDAndTheIndex() {
        #expect(DeliveryEventBatch.eventID(rowID: "evt_0123", index: 0) == "evt_0123_0")
        #expect(DeliveryEventBatch.eventID(rowID: "evt_0123", index: 999) == "evt_0123_999")
    }

    @Test func malformedDataIsRefused() {
        var data = Self.accepted().data
        data["apns_ids"] = ["A-1"]
        #expect(Self.read(data, failed: false) == nil)
        data["apns_ids"] = ["A-1", 2]
        #expect(Self.read(data, failed: false) == nil)
        data = Self.accepted().data
        data["notification_id"] = nil
        #expect(Self.read(data, failed: false) == nil)
        // A token kind this build does not know is refused, not read as some other kind.
        data = Self.accepted().data
        data["token_kind"] = "live_activity"
        #expect(Self.read(data, failed: false) == nil)
    }
}
