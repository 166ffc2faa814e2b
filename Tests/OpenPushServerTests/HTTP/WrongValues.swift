/// The classes of wrong value every input of every route is tried with: each as JSON text (to
/// splice into a body, so a lone surrogate can be written) and as the text a path segment,
/// query parameter or header would carry.
struct WrongValue: Sendable, CustomStringConvertible {
    var name: String
    /// Spliced verbatim into a JSON body.
    var json: String
    /// The decoded text for a query parameter or header; nil where no such text exists.
    var text: String?
    /// The text as it goes into a path, already percent-encoded.
    var pathSegment: String
    /// Holds U+0000: the answer must be a `400` naming the input.
    var hasNUL = false

    var description: String { name }

    init(_ name: String, json: String, text: String?, pathSegment: String? = nil, hasNUL: Bool = false) {
        self.name = name
        self.json = json
        self.text = text
        self.pathSegment = pathSegment ?? text.map(WrongValue.percentEncoded) ?? ""
        self.hasNUL = hasNUL
    }

    /// A JSON string.
    static func string(_ name: String, _ text: String) -> WrongValue {
        WrongValue(name, json: JSONStringText.quoted(text), text: text)
    }

    static let all: [WrongValue] = [
        WrongValue("null", json: "null", text: "null"),
        WrongValue("true", json: "true", text: "true"),
        WrongValue("false", json: "false", text: "false"),
        WrongValue("zero", json: "0", text: "0"),
        WrongValue("minus one", json: "-1", text: "-1"),
        WrongValue("fraction", json: "1.5", text: "1.5"),
        WrongValue("1e308", json: "1e308", text: "1e308"),
        WrongValue("-1e308", json: "-1e308", text: "-1e308"),
        WrongValue("1e400 (beyond a double)", json: "1e400", text: "1e400"),
        WrongValue("-2^63-1", json: "-9223372036854775809", text: "-9223372036854775809"),
        WrongValue("2^63", json: "9223372036854775808", text: "9223372036854775808"),
        WrongValue("NUL", json: #""a\u0000b""#, text: "a\u{0}b", hasNUL: true),
        WrongValue("only NUL", json: #""\u0000""#, text: "\u{0}", hasNUL: true),
        WrongValue("lone high surrogate", json: #""\ud800""#, text: nil, pathSegment: "%ED%A0%80"),
        WrongValue("lone low surrogate", json: #""x\udc00""#, text: nil, pathSegment: "x%ED%B0%80"),
        .string("empty string", ""),
        .string("10,000 characters", longText),
        .string("emoji", "🚀👩‍👩‍👧‍👦🇳🇿"),
        WrongValue("empty array", json: "[]", text: "[]"),
        WrongValue("array", json: #"["x",1,null]"#, text: "x,1"),
        WrongValue("empty object", json: "{}", text: "{}"),
        WrongValue("nested object", json: #"{"a":{"b":[1,{"c":"d"}]}}"#, text: "{\"a\":1}"),
    ]

    /// Letters from a fixed pseudo-random sequence, so compression cannot shrink them below an
    /// index's row limit the way 10,000 copies of one letter would.
    static let longText: String = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var scalars = String.UnicodeScalarView()
        for _ in 0..<10_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            scalars.append(Unicode.Scalar(UInt8(ascii: "a") + UInt8((state >> 33) % 26)))
        }
        return String(scalars)
    }()

    static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }
}

/// JSON string text for a Swift string (control characters escaped as `\u00XX`).
enum JSONStringText {
    static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
