/// How Liquid sees JSON values: truthiness, text, numbers and equality.
extension JSONValue {
    /// Only `false` and `nil` are falsy; `0`, `""` and `[]` are truthy.
    var isLiquidTruthy: Bool {
        switch self {
        case .null, .bool(false): false
        default: true
        }
    }

    /// `""`, `[]` and `{}`: what the `empty` keyword equals.
    var isLiquidEmpty: Bool {
        switch self {
        case .string(let string): string.isEmpty
        case .array(let array): array.isEmpty
        case .object(let object): object.isEmpty
        default: false
        }
    }

    /// `nil`, `false`, whitespace-only strings, `[]` and `{}`: what the `blank` keyword equals.
    var isLiquidBlank: Bool {
        switch self {
        case .null, .bool(false): true
        case .string(let string): string.allSatisfy(\.isWhitespace)
        case .array(let array): array.isEmpty
        case .object(let object): object.isEmpty
        default: false
        }
    }

    /// The value as output renders it. `nil` is empty, integers have no decimal point and
    /// doubles always have one (`3.0`), arrays concatenate their elements, and objects render
    /// as compact JSON (Liquid prints a hash's inspection; JSON is the closest honest text).
    var liquidText: String {
        switch self {
        case .null: ""
        case .bool(let bool): bool ? "true" : "false"
        case .int(let int): String(int)
        case .double(let double): Self.liquidText(double)
        case .string(let string): string
        case .array(let array): array.map(\.liquidText).joined()
        case .object: serialized
        }
    }

    /// Ruby's `Float#to_s`: `3.0`, `0.1`, `1.0e+20`.
    static func liquidText(_ double: Double) -> String {
        if double.isNaN { return "NaN" }
        if double.isInfinite { return double < 0 ? "-Infinity" : "Infinity" }
        let text = double.description
        if let exponent = text.firstIndex(of: "e"), !text[..<exponent].contains(".") {
            return text[..<exponent] + ".0" + text[exponent...]
        }
        return text
    }

    /// A number for arithmetic, as Liquid's `to_number`: numbers as they are, strings by
    /// their leading digits (`"3.5"` → 3.5, `"12abc"` → 12, `"abc"` → 0), anything else 0.
    var liquidNumber: JSONValue {
        switch self {
        case .int, .double: return self
        case .string(let string): return Self.number(parsing: string)
        default: return .int(0)
        }
    }

    private static func number(parsing string: String) -> JSONValue {
        let utf8 = Array(string.utf8)
        var index = 0
        while index < utf8.count, LiquidSourceScanner.isWhitespace(utf8[index]) { index += 1 }
        let start = index
        if index < utf8.count, utf8[index] == UInt8(ascii: "-") || utf8[index] == UInt8(ascii: "+") { index += 1 }
        let digitsStart = index
        while index < utf8.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[index]) { index += 1 }
        guard index > digitsStart else { return .int(0) }
        var end = index
        if index + 1 < utf8.count, utf8[index] == UInt8(ascii: "."),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[index + 1])
        {
            end = index + 1
            while end < utf8.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[end]) { end += 1 }
            return .double(Double(String(decoding: utf8[start..<end], as: UTF8.self)) ?? 0)
        }
        let text = String(decoding: utf8[start..<end], as: UTF8.self)
        if let int = Int64(text) { return .int(int) }
        return .double(Double(text) ?? 0)
    }

    /// Integer arguments such as `truncate: 20` or `limit: n`: numbers truncated, strings
    /// parsed, all clamped to 32 bits so that offsets and lengths cannot overflow.
    var liquidInteger: Int {
        switch liquidNumber {
        case .int(let int): return Int(clamping: max(min(int, Int64(Int32.max)), Int64(Int32.min)))
        case .double(let double) where double.isFinite:
            return Int(max(min(double, Double(Int32.max)), Double(Int32.min)))
        default: return 0
        }
    }

    /// `==` as Liquid means it: `1 == 1.0`, strings and numbers never equal each other.
    func liquidEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let left), .int(let right)): return left == right
        case (.int, .double), (.double, .int), (.double, .double):
            return doubleValue == other.doubleValue
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.liquidEquals($1) }
        default: return self == other
        }
    }

    /// `<` and friends: between two numbers or two strings; anything else is not ordered.
    func liquidCompare(_ other: JSONValue) -> Int? {
        switch (self, other) {
        case (.int(let left), .int(let right)):
            return left < right ? -1 : (left == right ? 0 : 1)
        case (.int, .double), (.double, .int), (.double, .double):
            guard let left = doubleValue, let right = other.doubleValue, !left.isNaN, !right.isNaN else { return nil }
            return left < right ? -1 : (left == right ? 0 : 1)
        case (.string(let left), .string(let right)):
            let left = Array(left.utf8), right = Array(right.utf8)
            return left.lexicographicallyPrecedes(right) ? -1 : (left == right ? 0 : 1)
        default:
            return nil
        }
    }

    /// `contains`: a substring of a string, an element of an array, a key of an object.
    func liquidContains(_ other: JSONValue) -> Bool {
        switch self {
        case .string(var string):
            guard other != .null else { return false }
            // In place, not copied: a template may compare a long string many times.
            var needle = other.liquidText
            return string.withUTF8 { haystack in needle.withUTF8 { haystack.liquidRange(of: $0) != nil } }
        case .array(let array):
            return array.contains { $0.liquidEquals(other) }
        case .object(let object):
            guard case .string(let key) = other else { return false }
            return object[key] != nil
        default:
            return false
        }
    }
}

extension Array where Element == UInt8 {
    /// The first occurrence of `needle` at or after `start`, by bytes (Knuth–Morris–Pratt, so
    /// the time is linear whatever the input); an empty needle is found at `start`.
    func liquidRange(of needle: [UInt8], from start: Int = 0) -> Range<Int>? {
        withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { haystack.liquidRange(of: $0, from: start) }
        }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// `Array.liquidRange(of:from:)` over bytes in place.
    func liquidRange(of needle: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Range<Int>? {
        guard !needle.isEmpty else { return start..<start }
        guard start >= 0, needle.count <= count - start else { return nil }
        var failure = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in 1..<needle.count {
            while length > 0, needle[index] != needle[length] { length = failure[length - 1] }
            if needle[index] == needle[length] { length += 1 }
            failure[index] = length
        }
        var matched = 0
        let first = needle[0]
        var index = start
        while index < count {
            // Between partial matches, only the first byte is looked for.
            if matched == 0 {
                while index < count, self[index] != first { index += 1 }
                guard index < count else { return nil }
            }
            while matched > 0, self[index] != needle[matched] { matched = failure[matched - 1] }
            if self[index] == needle[matched] { matched += 1 }
            if matched == needle.count { return (index + 1 - needle.count)..<(index + 1) }
            index += 1
        }
        return nil
    }
}
