import Testing
import OpenPushCore

/// The body of `update_user`, read without I/O.
@Suite struct UserUpdateValidationTests {
    @Test func propertiesAndDeltasAreRead() throws {
        let update = try UserUpdate(body: [
            "properties": ["tags": ["a": "1", "b": ""], "lat": 10, "long": -20.5, "last_active": 5],
            "deltas": ["session_count": 1, "purchases": [["sku": "s", "amount": "0.99", "iso": "eur"]]],
            "refresh_device_metadata": true,
        ])
        #expect(update == UserUpdate(
            properties: UserProperties(tags: TagChanges(["a": "1", "b": ""]), latitude: 10, longitude: -20.5, lastActive: 5),
            deltas: UserDeltas(sessionCount: 1, purchases: [UserPurchase(sku: "s", amount: "0.99", iso: "EUR", count: 1)])))
        #expect(try UserUpdate(body: ["refresh_device_metadata": false, "deltas": [:]]) == UserUpdate())
        #expect(throws: InvalidInput(["properties or deltas is required"])) { try UserUpdate(body: ["refresh_device_metadata": true]) }
        #expect(throws: InvalidInput(["properties must be an object, got string", "unknown field 'extra'"])) {
            try UserUpdate(body: ["properties": "x", "extra": 1])
        }
    }

    @Test(arguments: [("4", true), ("4.99", true), ("0.000001", true), ("123456789012", true), ("1234567890123", false),
                      ("4.", false), (".5", false), ("4.1234567", false), ("-1", false), ("4,99", false), ("1e3", false),
                      ("", false), ("1.2.3", false), ("٤", false)])
    func amounts(text: String, valid: Bool) {
        #expect(UserPurchase.isAmount(text) == valid)
    }
}
