import Foundation
import Testing
import OpenPushCore

@Suite struct TimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_796_022_000.0, "2026-11-30T07:00:00.000Z"),
        (951_782_400.5, "2000-02-29T00:00:00.500Z"),  // a leap day of a century leap year
        (4_107_542_399.999, "2100-02-28T23:59:59.999Z"),  // 2100 is not a leap year
        (-1.0, "1969-12-31T23:59:59.000Z"),
        (1_700_000_000.1234, "2023-11-14T22:13:20.123Z"),
        (1_699_999_999.9996, "2023-11-14T22:13:20.000Z"),  // rounds into the next second
    ])
    func formatsUTCWithMilliseconds(_ seconds: Double, _ expected: String) {
        #expect(Timestamp.iso8601(seconds) == expected)
    }

    /// Four hundred years, a week and a few hours apart, against Foundation's formatter.
    @Test func agreesWithFoundationAcrossAFullGregorianCycle() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let start = -4_000_000_000
        for seconds in stride(from: start, through: start + 146_097 * 86_400, by: 7 * 86_400 + 3_601) {
            let instant = Double(seconds) + 0.25
            #expect(Timestamp.iso8601(instant) == formatter.string(from: Date(timeIntervalSince1970: instant)))
        }
    }
}
