import Testing
import OpenPushCore

@Suite struct DeliveryListRequestTests {
    @Test func defaultsWhenNothingIsGiven() throws {
        #expect(try DeliveryListRequest.read([:]) == DeliveryListRequest(limit: 100))
        // Parameters of the route itself are not this type's business.
        #expect(try DeliveryListRequest.read(["app_id": "app_1"]) == DeliveryListRequest())
    }

    @Test func everyParameterIsRead() throws {
        let cursor = DeliveryPosition(subscriptionID: "sub_01hq8b", id: 41).cursor
        let request = try DeliveryListRequest.read(["subscription_id": "sub_1", "state": "error", "limit": "1000",
                                                    "cursor": cursor])
        #expect(request == DeliveryListRequest(subscriptionID: "sub_1", state: .error, limit: 1000,
                                               after: DeliveryPosition(subscriptionID: "sub_01hq8b", id: 41)))
        for state in DeliveryListRequest.State.allCases {
            #expect(try DeliveryListRequest.read(["state": state.rawValue]).state == state)
        }
        #expect(try DeliveryListRequest.read(["limit": "1"]).limit == 1)
    }

    @Test(arguments: ["expired", "ACCEPTED", "", "queued", "accepted,error", " accepted"])
    func aStateOutsideTheFourIsRefusedNamingThem(_ state: String) {
        #expect(throws: InvalidInput("state must be one of accepted, error, cancelled, superseded, suppressed")) {
            try DeliveryListRequest.read(["state": state])
        }
    }

    @Test(arguments: ["0", "1001", "-1", "ten", "", "1.5", "9223372036854775808"])
    func aLimitOutsideOneToAThousandIsRefused(_ limit: String) {
        #expect(throws: InvalidInput("limit must be an integer from 1 to 1000")) {
            try DeliveryListRequest.read(["limit": limit])
        }
    }

    @Test(arguments: ["", "AAAAAAAAAA", "AAAAAAAAAAAA", "AAAAAAAAAAE=", "AAAAAAAAAA+", "AAAAAAAAAA/", "AAAAAAAAAAB",
                      "gAAAAAAAAAA", "__________8", "42", "AAAAAAAAAA\u{0}", "AAAAAAAAAAé", "🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀"])
    func anIDEncodeCannotHaveMadeIsRefused(_ cursor: String) {
        #expect(DeliveryCursor.decode(cursor) == nil)
    }

    /// A page's cursor is its last record's id (as `DeliveryCursor`), a `.`, and then its device.
    @Test(arguments: ["", "AAAAAAAAAAA", "AAAAAAAAAAA.", "AAAAAAAAAAAsub_1", "AAAAAAAAAAA-sub_1", "AAAAAAAAAAE=.sub_1",
                      "gAAAAAAAAAA.sub_1", "AAAAAAAAAAA.sub 1", "AAAAAAAAAAA.sub_é", "AAAAAAAAAAA.sub/1", "AAAAAAAAAAA.sub%201",
                      "AAAAAAAAAAA.sub.1", "AAAAAAAAAAA." + String(repeating: "s", count: 129)])
    func aCursorOfNoPositionIsRefused(_ cursor: String) {
        #expect(DeliveryPosition(cursor: cursor) == nil)
        #expect(throws: InvalidInput("cursor is not valid")) {
            try DeliveryListRequest.read(["cursor": cursor])
        }
    }

    @Test(arguments: [("sub_01hq8b5v6m0000000000000000", Int64(1)), ("a", Int64(0)),
                      ("6c4a1f43-8a47-4b38-9b8c-0f2b3a7f11d2", Int64.max), (String(repeating: "s", count: 128), Int64(4_294_967_296))]
                      as [(String, Int64)])
    func positionsRoundTrip(_ subscriptionID: String, _ id: Int64) {
        let position = DeliveryPosition(subscriptionID: subscriptionID, id: id)
        #expect(position.cursor == DeliveryCursor.encode(id) + "." + subscriptionID)
        #expect(DeliveryPosition(cursor: position.cursor) == position)
    }

    @Test func badValuesAreNamedTogether() {
        #expect(throws: InvalidInput([
            "subscription_id must not be empty", "state must be one of accepted, error, cancelled, superseded, suppressed",
            "limit must be an integer from 1 to 1000", "cursor is not valid",
        ])) {
            try DeliveryListRequest.read(["subscription_id": "", "state": "gone", "limit": "0", "cursor": "x"])
        }
    }

    /// base64url without padding of the id's 8 big-endian bytes (checked against Python's
    /// `base64.urlsafe_b64encode(struct.pack('>q', id))`).
    @Test(arguments: [(Int64(0), "AAAAAAAAAAA"), (1, "AAAAAAAAAAE"), (255, "AAAAAAAAAP8"), (123_456_789, "AAAAAAdbzRU"),
                      (4_294_967_296, "AAAAAQAAAAA"), (Int64.max, "f_________8")])
    func cursorsAreBase64URLOfTheID(_ id: Int64, _ text: String) {
        #expect(DeliveryCursor.encode(id) == text)
        #expect(DeliveryCursor.decode(text) == id)
    }

    @Test func cursorsRoundTrip() {
        var id: Int64 = 1
        while id < Int64.max / 3 {
            #expect(DeliveryCursor.decode(DeliveryCursor.encode(id)) == id)
            #expect(DeliveryCursor.decode(DeliveryCursor.encode(id - 1)) == id - 1)
            id = id * 3 + 1
        }
    }
}
