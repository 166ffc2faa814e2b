import Testing
import OpenPushCore

/// Expected values are worked out by hand: 2015-09-24T00:00:00Z is 16,702 days after the epoch,
/// 1,443,052,800; 14:00 at -07:00 is 21:00 UTC, 1,443,128,400.
@Suite struct SendAfterDateTests {
    static let septemberTwentyFourth2100UTC: Double = 1_443_128_400

    @Test(arguments: [
        // ISO 8601 / RFC 3339
        ("2015-09-24T21:00:00Z", septemberTwentyFourth2100UTC),
        ("2015-09-24t21:00:00z", septemberTwentyFourth2100UTC),
        ("2015-09-24T14:00:00-07:00", septemberTwentyFourth2100UTC),
        ("2015-09-24T14:00:00-0700", septemberTwentyFourth2100UTC),
        ("2015-09-24T23:30:00+02:30", septemberTwentyFourth2100UTC),
        ("2015-09-24T21:00:00.250Z", septemberTwentyFourth2100UTC + 0.25),
        ("2015-09-24T14:00:00.5-07:00", septemberTwentyFourth2100UTC + 0.5),
        ("2015-09-24 21:00:00Z", septemberTwentyFourth2100UTC),
        // Python's datetime.isoformat(): aware, with microseconds, and naive (read as UTC)
        ("2026-12-01T14:00:00+00:00", 1_796_133_600),
        ("2026-12-01T14:00:00.123456+00:00", 1_796_133_600.123456),
        ("2026-12-01T14:00:00", 1_796_133_600),
        ("2026-12-01 14:00:00", 1_796_133_600),
        // The forms OneSignal documents
        ("2015-09-24 14:00:00 GMT-0700", septemberTwentyFourth2100UTC),
        ("Thu Sep 24 2015 14:00:00 GMT-0700 (PDT)", septemberTwentyFourth2100UTC),
        ("Thu Sep 24 2015 14:00:00 GMT-0700 (Pacific Daylight Time)", septemberTwentyFourth2100UTC),
        ("Sept 24 2015 14:00:00 GMT-0700", septemberTwentyFourth2100UTC),
        ("September 24th 2015, 2:00:00 pm UTC-07:00", septemberTwentyFourth2100UTC),
        // Variations inside those forms
        ("Thursday, September 24 2015 21:00:00 UTC", septemberTwentyFourth2100UTC),
        ("sep 24 2015 9:00:00 PM GMT", septemberTwentyFourth2100UTC),
        ("Sep 24 2015 9:00 pm Z", septemberTwentyFourth2100UTC),
        ("September 24th 2015, 12:00:00 am UTC", 1_443_052_800),  // midnight
        ("September 24th 2015, 12:00:00 pm UTC", 1_443_096_000),  // noon
        ("March 1st 2015, 1:00:00 am UTC+01:00", 1_425_168_000),  // 2015-03-01T00:00:00Z
        ("Feb 29 2024 12:00:00 GMT+0000", 1_709_208_000),  // a leap day
        ("January 2nd 2000, 3:00:00 am UTC+03", 946_771_200),  // 2000-01-02T00:00:00Z
        ("  2015-09-24T21:00:00Z  ", septemberTwentyFourth2100UTC),
    ])
    func readsEachAcceptedForm(_ text: String, _ expected: Double) throws {
        let seconds = try #require(SendAfterDate.unixSeconds(text))
        #expect(abs(seconds - expected) < 1e-6, "\(text) read as \(seconds), expected \(expected)")
    }

    @Test(arguments: [
        "2015-02-29T12:00:00Z",  // 2015 is not a leap year
        "2015-02-30T12:00:00Z",
        "2015-04-31T12:00:00Z",
        "2015-13-01T12:00:00Z",
        "2015-00-10T12:00:00Z",
        "2015-09-24T25:00:00Z",
        "2015-09-24T24:00:00Z",
        "2015-09-24T14:60:00Z",
        "2015-09-24T14:00:60Z",
        "2015-09-24T14:00:00+15:00",
        "2015-09-24T14:00:00-14:30",
        "2015-09-24T14:00:00+07:60",
        "Feb 30 2015 12:00:00 GMT",
        "Smarch 24 2015 14:00:00 GMT",
        "September 24st 2015, 2:00:00 pm UTC",
        "September 24th 2015, 13:00:00 pm UTC",
        "September 24th 2015, 0:00:00 am UTC",
        "Sep 24 2015 14:00:00",  // a written date needs its zone
        "Sep 24 2015 14:00:00 PST",
        "Thu Sep 24 2015 14:00:00 GMT-0700 (PDT",
        "2015-09-24",
        "2015-09-24T14",
        "2015-09-24T14:00:00Zulu",
        "2015-09-24T14:00:00.Z",
        "1443128400",
        "tomorrow",
        "",
    ])
    func refusesAnythingElse(_ text: String) {
        #expect(SendAfterDate.unixSeconds(text) == nil, "\(text) should be refused")
    }

    static let send: JSONObject = ["app_id": "app", "contents": ["en": "x"], "included_segments": ["Subscribed Users"]]

    static func parse(sendAfter: JSONValue) -> Result<NotificationSend, InvalidInput> {
        var body = send
        body["send_after"] = sendAfter
        return NotificationSendParser.parse(body)
    }

    @Test func aNotificationTakesADateStringOrUnixSeconds() throws {
        #expect(try Self.parse(sendAfter: "Thu Sep 24 2015 14:00:00 GMT-0700 (PDT)").get().sendAfter == 1_443_128_400)
        #expect(try Self.parse(sendAfter: 1_443_128_400).get().sendAfter == 1_443_128_400)
        #expect(try Self.parse(sendAfter: 1_443_128_400.5).get().sendAfter == 1_443_128_400.5)
    }

    @Test(arguments: [
        (JSONValue.string("next tuesday"), SendAfterDate.message),
        (JSONValue.string("2015-02-30T12:00:00Z"), SendAfterDate.message),
        (JSONValue.int(-5), "send_after must be a unix timestamp in seconds"),
        (JSONValue.bool(true), "send_after must be a unix timestamp in seconds"),
        (JSONValue.int(1_443_128_400_000), "send_after must be a unix timestamp in seconds, not milliseconds"),
    ])
    func aNotificationRefusesOtherSendAfters(_ value: JSONValue, _ message: String) {
        guard case .failure(let error) = Self.parse(sendAfter: value) else {
            Issue.record("\(value) was accepted")
            return
        }
        #expect(error.messages == [message])
    }

    @Test func theMessageListsTheAcceptedForms() {
        #expect(SendAfterDate.message == "send_after must be a unix timestamp or a date such as 2015-09-24T14:00:00Z, "
            + "2015-09-24 14:00:00 GMT-0700, Thu Sep 24 2015 14:00:00 GMT-0700 (PDT) "
            + "or September 24th 2015, 2:00:00 pm UTC-07:00")
    }
}
