/// Validation of the values the native Live Activity routes accept. Messages are the
/// contract's where it gives them.
package enum LiveActivityInput {
    package static let blankActivityID =
        "activity_id is required — an activity with no id cannot be updated, ended or found by a fan-out"

    /// Missing, null or blank is the contract's long message; another type names the type.
    package static func activityIDProblem(_ value: JSONValue?) -> String? {
        switch value {
        case nil, .null?: return blankActivityID
        case .string(let id)?: return id.allSatisfy(\.isWhitespace) ? blankActivityID : nil
        case let other?: return "activity_id must be a string, got \(other.typeName)"
        }
    }

    /// Update and push-to-start tokens: hex, even length, 64–512 characters (`lengths` for
    /// other tokens of the same shape).
    package static func tokenProblem(_ field: String, _ value: JSONValue?, lengths: ClosedRange<Int> = 64...512) -> String? {
        guard let value, value != .null else { return "\(field) is required" }
        guard case .string(let token) = value else { return "\(field) must be a string, got \(value.typeName)" }
        guard !token.isEmpty else { return "\(field) is required" }
        guard token.utf8.allSatisfy(isHexDigit) else { return "\(field) must be hexadecimal" }
        guard token.utf8.count % 2 == 0 else { return "\(field) must have an even number of characters" }
        guard lengths.contains(token.utf8.count) else {
            return "\(field) must be \(lengths.lowerBound)–\(lengths.upperBound) characters, got \(token.utf8.count)"
        }
        return nil
    }

    /// `stale_at`: a number of unix seconds, or a string holding one. Booleans, objects and
    /// unparseable text are rejected; zero, negative, NaN and infinite values are rejected with
    /// the contract's message.
    package static func staleAt(_ value: JSONValue?) -> Result<Double?, StaleAtProblem> {
        let number: Double
        let shown: String
        switch value {
        case nil, .null?:
            return .success(nil)
        case .int(let int)?:
            number = Double(int)
            shown = String(int)
        case .double(let double)?:
            number = double
            shown = double.description
        case .string(let text)?:
            guard let parsed = Double(text.trimmingSpaces) else {
                return .failure(StaleAtProblem("stale_at must be a number of unix seconds, got \"\(text)\""))
            }
            number = parsed
            shown = parsed.description
        case let other?:
            return .failure(StaleAtProblem("stale_at must be a number of unix seconds, got \(other.typeName)"))
        }
        guard number.isFinite, number > 0 else {
            return .failure(StaleAtProblem("stale_at must be a finite positive unix timestamp, got \(shown)"))
        }
        return .success(number)
    }

    package struct StaleAtProblem: Error, Equatable {
        package var message: String
        package init(message: String) { self.message = message }
        init(_ message: String) { self.message = message }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
