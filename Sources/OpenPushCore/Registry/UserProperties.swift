/// A user's own properties, OneSignal's names. `nil` leaves a property as it is.
package struct UserProperties: Sendable, Equatable {
    package var tags: TagChanges?
    package var language: String?
    package var timezoneID: String?
    package var country: String?
    /// Degrees, OneSignal's `lat` and `long`.
    package var latitude: Double?
    package var longitude: Double?
    /// Unix seconds, as OneSignal's clients send them.
    package var firstActive: Int64?
    package var lastActive: Int64?

    package init(tags: TagChanges? = nil, language: String? = nil, timezoneID: String? = nil, country: String? = nil,
                 latitude: Double? = nil, longitude: Double? = nil, firstActive: Int64? = nil, lastActive: Int64? = nil) {
        self.tags = tags
        self.language = language
        self.timezoneID = timezoneID
        self.country = country
        self.latitude = latitude
        self.longitude = longitude
        self.firstActive = firstActive
        self.lastActive = lastActive
    }

    /// Up to the year 9999: a bigger value is a client's mistake (milliseconds, say).
    package static let activeTimes: ClosedRange<Int64> = 0...253_402_300_799

    /// Whether the body set anything.
    package var isEmpty: Bool { self == UserProperties() }

    static func read(_ reader: inout FieldReader) -> UserProperties {
        let limit = AliasLabel.maxValueLength
        let properties = UserProperties(
            tags: reader.tagChanges("tags", holder: .user), language: reader.string("language", maxLength: limit),
            timezoneID: reader.string("timezone_id", maxLength: limit), country: reader.string("country", maxLength: limit),
            latitude: reader.number("lat", in: -90...90), longitude: reader.number("long", in: -180...180),
            firstActive: reader.integer("first_active", in: activeTimes), lastActive: reader.integer("last_active", in: activeTimes))
        // Fields of OneSignal's properties object that are answers, not inputs.
        for (key, reason) in [("amount_spent", "is the sum of the purchases sent in deltas.purchases"),
                              ("purchases", "are recorded through deltas.purchases"),
                              ("ip", "is not stored by OpenPush")] where reader.has(key) {
            _ = reader.value(key)
            reader.problem("\(key) \(reason)")
        }
        reader.rejectUnknownFields()
        return properties
    }
}

extension FieldReader {
    /// A finite JSON number within `range`.
    package mutating func number(_ key: String, in range: ClosedRange<Double>, required: Bool = false) -> Double? {
        guard let raw = value(key), raw != .null else {
            if required { problem("\(key) is required") }
            return nil
        }
        guard let number = raw.doubleValue, range.contains(number) else {
            problem("\(key) must be a number from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound))")
            return nil
        }
        return number
    }

    /// `90` rather than `90.0` when the bound is whole.
    private static func plain(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
