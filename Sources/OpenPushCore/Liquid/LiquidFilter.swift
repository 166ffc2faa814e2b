/// The filters a template may use. The list is closed: an unknown name is a parse error.
/// Each takes the value on its left as input; `LiquidFilter+Apply.swift` has the semantics.
enum LiquidFilter: String, Sendable, CaseIterable {
    // Strings.
    case append, prepend, capitalize, downcase, upcase, escape
    case strip, lstrip, rstrip
    case replace, replaceFirst = "replace_first", remove, removeFirst = "remove_first"
    case truncate, truncatewords, split
    case urlEncode = "url_encode"
    // Arrays (and strings where it makes sense).
    case size, join, first, last, reverse
    // Numbers.
    case plus, minus, times, dividedBy = "divided_by", modulo, abs, ceil, floor, round
    // Anything.
    case `default`

    /// How many positional arguments the filter accepts.
    var arity: ClosedRange<Int> {
        switch self {
        case .capitalize, .downcase, .upcase, .escape, .strip, .lstrip, .rstrip, .urlEncode,
            .size, .first, .last, .reverse, .abs, .ceil, .floor:
            0...0
        case .append, .prepend, .remove, .removeFirst, .split, .plus, .minus, .times, .dividedBy, .modulo:
            1...1
        case .replace, .replaceFirst:
            1...2
        case .truncate, .truncatewords:
            0...2
        case .join, .round, .default:
            0...1
        }
    }

    /// Whether the filter walks its input by characters (grapheme clusters) rather than bytes:
    /// the renderer charges that walk more (`LiquidRenderer.characterWalkCost`).
    func walksCharacters(input: JSONValue, arguments: [JSONValue]) -> Bool {
        switch self {
        case .capitalize, .downcase, .upcase, .strip, .lstrip, .rstrip, .truncate, .truncatewords:
            true
        case .size:
            // An array's or an object's size is its count.
            if case .string = input { true } else { false }
        case .split:
            // Into characters, or on runs of whitespace; any other separator is found by bytes.
            arguments.first.map { [" ", ""].contains($0.liquidText) } ?? true
        case .replace, .replaceFirst, .remove, .removeFirst:
            // An empty target matches between every character.
            arguments.first?.liquidText.isEmpty ?? true
        default:
            false
        }
    }

    /// Named arguments the filter accepts, such as `default: "x", allow_false: true`.
    var namedArguments: Set<String> {
        self == .default ? ["allow_false"] : []
    }
}
