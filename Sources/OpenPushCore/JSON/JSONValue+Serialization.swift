extension JSONValue {
    /// Compact JSON text. Object keys keep their order; a non-finite double becomes `null`,
    /// since JSON has no spelling for it.
    public var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    public var serializedBytes: [UInt8] { Array(serialized.utf8) }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let bool): output += bool ? "true" : "false"
        case .int(let int): output += String(int)
        case .double(let double):
            output += double.isFinite ? double.description : "null"
        case .string(let string): Self.writeString(string, to: &output)
        case .array(let array):
            output += "["
            for (position, element) in array.enumerated() {
                if position > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (position, entry) in object.enumerated() {
                if position > 0 { output += "," }
                Self.writeString(entry.key, to: &output)
                output += ":"
                entry.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
