/// Request identifiers: generated per request, or taken from a well-formed `X-Request-Id`.
package enum RequestID {
    /// 16 random lowercase hex characters.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Accepts `[A-Za-z0-9._-]{1,64}` so a client id is safe to log and echo.
    package static func isValid(_ candidate: String) -> Bool {
        let bytes = candidate.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
