/// What each filter does. Filters never fail: a `nil` input gives an empty string, an empty
/// array or `nil` (which renders empty), and a division by zero gives `nil`.
extension LiquidFilter {
    /// `limit` bounds, in UTF-8 bytes, the results of filters that can multiply their input
    /// (`replace`, `join`), and `elements` the pieces `split` makes: past them they stop early,
    /// and the renderer, charging the result, finds its budget exhausted.
    func apply(to input: JSONValue, arguments: [JSONValue], named: [String: JSONValue], limit: Int = .max,
               elements: Int = .max) -> JSONValue
    {
        func argument(_ index: Int) -> JSONValue { index < arguments.count ? arguments[index] : .null }
        func text(_ index: Int) -> String { argument(index).liquidText }
        let string = input.liquidText

        switch self {
        case .append: return .string(string + text(0))
        case .prepend: return .string(text(0) + string)
        case .upcase: return .string(string.uppercased())
        case .downcase: return .string(string.lowercased())
        case .capitalize:
            guard let first = string.first else { return .string("") }
            return .string(first.uppercased() + string.dropFirst().lowercased())
        case .escape:
            if input == .null { return .null }
            return .string(Self.escapeHTML(string))
        case .urlEncode:
            if input == .null { return .null }
            return .string(Self.urlEncode(string))
        case .strip: return .string(String(string.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()))
        case .lstrip: return .string(String(string.drop(while: \.isWhitespace)))
        case .rstrip: return .string(String(string.reversed().drop(while: \.isWhitespace).reversed()))
        case .replace: return .string(Self.replace(text(0), in: string, with: text(1), all: true, limit: limit))
        case .replaceFirst: return .string(Self.replace(text(0), in: string, with: text(1), all: false, limit: limit))
        case .remove: return .string(Self.replace(text(0), in: string, with: "", all: true, limit: limit))
        case .removeFirst: return .string(Self.replace(text(0), in: string, with: "", all: false, limit: limit))
        case .truncate:
            if input == .null { return .null }
            let length = arguments.isEmpty ? 50 : argument(0).liquidInteger
            let ellipsis = arguments.count > 1 ? text(1) : "..."
            guard string.count > length else { return .string(string) }
            return .string(String(string.prefix(max(length - ellipsis.count, 0))) + ellipsis)
        case .truncatewords:
            if input == .null { return .null }
            let count = max(arguments.isEmpty ? 15 : argument(0).liquidInteger, 1)
            let ellipsis = arguments.count > 1 ? text(1) : "..."
            // No more words than it keeps and one: the rest need not be cut apart.
            let words = string.split(maxSplits: count, whereSeparator: \.isWhitespace)
            guard words.count > count else { return .string(string) }
            return .string(words.prefix(count).joined(separator: " ") + ellipsis)
        case .split:
            return .array(Self.split(string, on: text(0), limit: elements).map(JSONValue.string))
        case .size:
            switch input {
            case .string(let string): return .int(Int64(string.count))
            case .array(let array): return .int(Int64(array.count))
            case .object(let object): return .int(Int64(object.count))
            default: return .int(0)
            }
        case .join:
            guard case .array(let array) = input else { return .string(string) }
            let glue = arguments.isEmpty ? " " : text(0)
            var joined = ""
            for (position, element) in array.enumerated() {
                if position > 0 { joined += glue }
                joined += element.liquidText
                if joined.utf8.count > limit { break }
            }
            return .string(joined)
        case .first:
            switch input {
            case .array(let array): return array.first ?? .null
            case .string(let string): return string.first.map { .string(String($0)) } ?? .null
            default: return .null
            }
        case .last:
            switch input {
            case .array(let array): return array.last ?? .null
            case .string(let string): return string.last.map { .string(String($0)) } ?? .null
            default: return .null
            }
        case .reverse:
            guard case .array(let array) = input else { return input }
            return .array(array.reversed())
        case .plus: return Self.arithmetic(input, argument(0), int: { $0.addingReportingOverflow($1) }, double: +)
        case .minus: return Self.arithmetic(input, argument(0), int: { $0.subtractingReportingOverflow($1) }, double: -)
        case .times: return Self.arithmetic(input, argument(0), int: { $0.multipliedReportingOverflow(by: $1) }, double: *)
        case .dividedBy: return Self.divide(input.liquidNumber, argument(0).liquidNumber, remainder: false)
        case .modulo: return Self.divide(input.liquidNumber, argument(0).liquidNumber, remainder: true)
        case .abs:
            switch input.liquidNumber {
            case .int(let int) where int != .min: return .int(Swift.abs(int))
            case let number: return .double(Swift.abs(number.doubleValue ?? 0))
            }
        case .ceil: return Self.integer(input.liquidNumber, rounding: .up)
        case .floor: return Self.integer(input.liquidNumber, rounding: .down)
        case .round:
            let digits = arguments.isEmpty ? 0 : min(max(argument(0).liquidInteger, 0), 15)
            let number = input.liquidNumber
            if digits == 0 { return Self.integer(number, rounding: .toNearestOrAwayFromZero) }
            guard case .double(let double) = number else { return number }
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            return .double((double * scale).rounded() / scale)
        case .default:
            let allowFalse = named["allow_false"]?.isLiquidTruthy ?? false
            let replaced = allowFalse ? input == .null : !input.isLiquidTruthy
            return replaced || input.isLiquidEmpty ? argument(0) : input
        }
    }

    private static func arithmetic(
        _ left: JSONValue,
        _ right: JSONValue,
        int: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
        double: (Double, Double) -> Double
    ) -> JSONValue {
        let left = left.liquidNumber, right = right.liquidNumber
        if case .int(let a) = left, case .int(let b) = right {
            let result = int(a, b)
            if !result.overflow { return .int(result.partialValue) }
        }
        return .double(double(left.doubleValue ?? 0, right.doubleValue ?? 0))
    }

    /// Integer division floors, like Ruby (`-7 / 2` is `-4`); dividing by zero gives `nil`.
    private static func divide(_ left: JSONValue, _ right: JSONValue, remainder: Bool) -> JSONValue {
        if case .int(let a) = left, case .int(let b) = right {
            guard b != 0 else { return .null }
            guard !(a == .min && b == -1) else { return remainder ? .int(0) : .double(-Double(a)) }
            var quotient = a / b
            if (a % b != 0) && ((a < 0) != (b < 0)) { quotient -= 1 }
            return .int(remainder ? a - quotient * b : quotient)
        }
        let a = left.doubleValue ?? 0, b = right.doubleValue ?? 0
        guard b != 0 else { return .null }
        return .double(remainder ? a - b * (a / b).rounded(.down) : a / b)
    }

    private static func integer(_ number: JSONValue, rounding rule: FloatingPointRoundingRule) -> JSONValue {
        guard case .double(let double) = number else { return number }
        let rounded = double.rounded(rule)
        guard rounded.isFinite, Swift.abs(rounded) < 9e18 else { return .double(rounded) }
        return .int(Int64(rounded))
    }

    /// Every (or the first) occurrence of `target` in `string`, compared by bytes. An empty
    /// target matches between every character, as in Ruby.
    static func replace(_ target: String, in string: String, with replacement: String, all: Bool, limit: Int = .max)
        -> String
    {
        if target.isEmpty {
            guard all else { return replacement + string }
            var result = replacement
            for character in string {
                result.append(character)
                result += replacement
                if result.utf8.count > limit { break }
            }
            return result
        }
        let haystack = Array(string.utf8), needle = Array(target.utf8)
        var result: [UInt8] = []
        var index = 0
        while let found = haystack.liquidRange(of: needle, from: index) {
            result += haystack[index..<found.lowerBound]
            result += replacement.utf8
            index = found.upperBound
            if !all || result.count > limit { break }
        }
        result += haystack[index...]
        return String(decoding: result, as: UTF8.self)
    }

    /// Ruby's `String#split`: a single space splits on runs of whitespace, an empty pattern
    /// into characters, and trailing empty pieces are dropped. Past `limit` pieces it stops
    /// (the caller's budget is spent by then): the last piece is the rest of the string.
    static func split(_ string: String, on separator: String, limit: Int = .max) -> [String] {
        let maxSplits = max(limit, 1) - 1
        if separator == " " {
            return string.split(maxSplits: maxSplits, whereSeparator: \.isWhitespace).map(String.init)
        }
        if separator.isEmpty { return string.prefix(max(limit, 1)).map { String($0) } }
        let haystack = Array(string.utf8), needle = Array(separator.utf8)
        var pieces: [String] = []
        var index = 0
        while pieces.count < maxSplits, let found = haystack.liquidRange(of: needle, from: index) {
            pieces.append(String(decoding: haystack[index..<found.lowerBound], as: UTF8.self))
            index = found.upperBound
        }
        pieces.append(String(decoding: haystack[index...], as: UTF8.self))
        while pieces.last?.isEmpty == true { pieces.removeLast() }
        return pieces
    }

    /// By bytes: no byte of a multi-byte UTF-8 sequence is ASCII, so none is replaced.
    static func escapeHTML(_ string: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "&"): result += "&amp;".utf8
            case UInt8(ascii: "<"): result += "&lt;".utf8
            case UInt8(ascii: ">"): result += "&gt;".utf8
            case UInt8(ascii: "\""): result += "&quot;".utf8
            case UInt8(ascii: "'"): result += "&#39;".utf8
            default: result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Ruby's `CGI.escape`: unreserved bytes stay, a space becomes `+`, the rest `%XX`.
    static func urlEncode(_ string: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var result: [UInt8] = []
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "-"), UInt8(ascii: "~"):
                result.append(byte)
            case UInt8(ascii: " "):
                result.append(UInt8(ascii: "+"))
            default:
                result.append(UInt8(ascii: "%"))
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
