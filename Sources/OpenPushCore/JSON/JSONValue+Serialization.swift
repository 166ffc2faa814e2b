extension JSONValue {
    /// Compact JSON text. Object keys keep their order; a non-finite double becomes `null`,
    /// since JSON has no spelling for it.
    package var serialized: String {
        String(decoding: serializedBytes, as: UTF8.self)
    }

    /// `serialized` as UTF-8, written byte by byte into one buffer (a webhook batch or a job's
    /// compact events row is tens of kilobytes; appending to a `String` scalar by scalar cost
    /// more than everything else the dispatcher does).
    package var serializedBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let bool): output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .int(let int): output.append(contentsOf: String(int).utf8)
        case .double(let double):
            output.append(contentsOf: (double.isFinite ? double.description : "null").utf8)
        case .string(let string): Self.writeString(string, to: &output)
        case .array(let array):
            output.append(UInt8(ascii: "["))
            for (position, element) in array.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, entry) in object.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(entry.key, to: &output)
                output.append(UInt8(ascii: ":"))
                entry.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Escapes `"`, `\` and the control characters; every other byte of the UTF-8 (non-ASCII
    /// included) is copied as is. A string with nothing to escape is copied in one go.
    static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            guard bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                output.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): output.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): output.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): output.append(contentsOf: "\\t".utf8)
                case 0x08: output.append(contentsOf: "\\b".utf8)
                case 0x0C: output.append(contentsOf: "\\f".utf8)
                case _ where byte < 0x20:
                    let hex = String(byte, radix: 16)
                    output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: output.append(byte)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
