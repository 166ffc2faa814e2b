import Testing
import OpenPushCore

/// `dedupe_key`, `event_at` and `stale_after_seconds` as `POST /notifications` reads them, and
/// the app's `dedupe_window_days` and `stale_alert_seconds`.
@Suite struct AlertGatesParserTests {
    static func parse(_ extra: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var body: JSONObject = ["app_id": "a", "contents": ["en": "Hi"], "included_segments": ["Subscribed Users"]]
        for (key, value) in extra { body[key] = value }
        return NotificationSendParser.parse(body)
    }

    static func problems(_ extra: JSONObject) -> [String] {
        guard case .failure(let error) = parse(extra) else { return [] }
        return error.messages
    }

    @Test func theFieldsAreReadAndKept() throws {
        let send = try Self.parse(["dedupe_key": "order-7", "event_at": "2027-01-15T08:00:00Z", "stale_after_seconds": 900]).get()
        #expect(send.gates == AlertGates(dedupeKey: "order-7", eventAt: 1_800_000_000, staleAfterSeconds: 900))
        #expect(try Self.parse(["event_at": 1_799_971_200]).get().gates.eventAt == 1_799_971_200)
        #expect(try Self.parse(["event_at": 1_799_971_200.5]).get().gates.eventAt == 1_799_971_200.5)
        #expect(try Self.parse(["event_at": "2027-01-15T09:00:00.250+01:00"]).get().gates.eventAt == 1_800_000_000.25)
        #expect(try Self.parse(["dedupe_key": .string(String(repeating: "k", count: 255))]).get().gates.dedupeKey?.count == 255)
        #expect(try Self.parse(["dedupe_key": nil, "event_at": nil, "stale_after_seconds": nil]).get().gates == AlertGates())
    }

    static let wrongValues: [(JSONObject, String)] = [
        (["dedupe_key": ""], AlertGates.Messages.dedupeKey),
        (["dedupe_key": .string(String(repeating: "k", count: 256))], AlertGates.Messages.dedupeKey),
        (["dedupe_key": 7], AlertGates.Messages.dedupeKey),
        (["event_at": "yesterday"], AlertGates.Messages.eventAt),
        (["event_at": true], AlertGates.Messages.eventAt),
        (["event_at": -5], AlertGates.Messages.eventAt),
        (["event_at": 1_799_971_200_000], AlertGates.Messages.eventAtMilliseconds),
        (["event_at": 1_799_971_200, "stale_after_seconds": 0], AlertGates.Messages.staleAfterSeconds),
        (["event_at": 1_799_971_200, "stale_after_seconds": 2_592_001], AlertGates.Messages.staleAfterSeconds),
        (["event_at": 1_799_971_200, "stale_after_seconds": 1.5], AlertGates.Messages.staleAfterSeconds),
        (["stale_after_seconds": 60], AlertGates.Messages.staleAfterNeedsEventAt),
    ]

    @Test(arguments: wrongValues.indices)
    func wrongValuesAreNamed(_ index: Int) {
        let (extra, message) = Self.wrongValues[index]
        #expect(Self.problems(extra) == [message], "\(extra)")
    }

    @Test func theStoredSendKeepsThem() throws {
        let send = try Self.parse(["dedupe_key": "k", "event_at": 1_799_971_200.5, "stale_after_seconds": 60]).get()
        #expect(try StoredSend.decodeNotification(StoredSend.encode(send)) == send)
    }

    @Test func appFieldsHaveRangesAndCannotBeNull() throws {
        let fields = try AppFields.read(["name": "A", "dedupe_window_days": 7, "stale_alert_seconds": 0], for: .create,
                                        isP256PrivateKey: { _ in true })
        #expect(fields.alertGates == AppAlertGateFields(dedupeWindowDays: 7, staleAlertSeconds: 0))
        #expect(try AppFields.read([:], for: .update, isP256PrivateKey: { _ in true }).alertGates.isEmpty)
        #expect(throws: InvalidInput(["dedupe_window_days must be an integer from 1 to 365",
                                                         "stale_alert_seconds must be an integer from 0 to 2592000"])) {
            try AppFields.read(["dedupe_window_days": 0, "stale_alert_seconds": 2_592_001], for: .update, isP256PrivateKey: { _ in true })
        }
        #expect(throws: InvalidInput(["dedupe_window_days cannot be null", "stale_alert_seconds cannot be null"])) {
            try AppFields.read(["dedupe_window_days": nil, "stale_alert_seconds": nil], for: .update, isP256PrivateKey: { _ in true })
        }
    }
}
