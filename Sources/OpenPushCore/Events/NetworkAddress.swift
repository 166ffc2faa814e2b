/// An IPv4 (4 bytes) or IPv6 (16 bytes) address, and what kind of network it belongs to: a
/// webhook may only connect to a `public` one unless private targets are allowed.
package struct NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        case `public`
        case unspecified
        case loopback
        /// RFC 1918, carrier-grade NAT (100.64/10), and other ranges that only exist inside a network.
        case `private`
        case linkLocal = "link-local"
        /// fc00::/7.
        case uniqueLocal = "unique-local"
        case multicast
        /// Documentation, benchmarking, broadcast and otherwise reserved ranges.
        case reserved
    }

    package let bytes: [UInt8]

    /// nil unless `bytes` has 4 or 16 bytes.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    package var isIPv6: Bool { bytes.count == 16 }

    /// Dotted IPv4, or eight full IPv6 groups (what `CURLOPT_RESOLVE` takes, in brackets).
    package var description: String {
        guard isIPv6 else { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    package var kind: Kind {
        isIPv6 ? Self.kindIPv6(bytes) : Self.kindIPv4(bytes[0], bytes[1], bytes[2], bytes[3])
    }

    package var isPublic: Bool { kind == .public }

    private static func kindIPv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Kind {
        switch (a, b, c) {
        case (0, _, _): return a == 0 && b == 0 && c == 0 && d == 0 ? .unspecified : .reserved   // 0/8 "this network"
        case (10, _, _): return .private
        case (100, 64...127, _): return .private                  // shared address space (CGNAT)
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal
        case (172, 16...31, _): return .private
        case (192, 0, 0): return .reserved                          // IETF protocol assignments
        case (192, 0, 2), (198, 51, 100), (203, 0, 113): return .reserved   // documentation
        case (192, 88, 99): return .reserved                        // 6to4 relay anycast
        case (192, 168, _): return .private
        case (198, 18...19, _): return .reserved                    // benchmarking
        case (224...239, _, _): return .multicast
        case (240...255, _, _): return .reserved                    // reserved and broadcast
        default: return .public
        }
    }

    private static func kindIPv6(_ b: [UInt8]) -> Kind {
        let zeroPrefix10 = b[0..<10].allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d (IPv4-mapped) is the IPv4 address; ::a.b.c.d (IPv4-compatible, deprecated)
        // and 64:ff9b::a.b.c.d (NAT64) reach it too.
        if zeroPrefix10, b[10] == 0xff, b[11] == 0xff { return kindIPv4(b[12], b[13], b[14], b[15]) }
        if zeroPrefix10, b[10] == 0, b[11] == 0 {
            if b[12..<15].allSatisfy({ $0 == 0 }) {
                if b[15] == 0 { return .unspecified }
                if b[15] == 1 { return .loopback }
            }
            return .reserved
        }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4..<12].allSatisfy({ $0 == 0 }) {
            let embedded = kindIPv4(b[12], b[13], b[14], b[15])
            return embedded == .public ? .public : embedded
        }
        if b[0] == 0xff { return .multicast }
        if b[0] == 0xfe, b[1] & 0xc0 == 0x80 { return .linkLocal }        // fe80::/10
        if b[0] == 0xfe, b[1] & 0xc0 == 0xc0 { return .private }          // fec0::/10 site-local (deprecated)
        if b[0] & 0xfe == 0xfc { return .uniqueLocal }                     // fc00::/7
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0d, b[3] == 0xb8 { return .reserved }   // 2001:db8::/32 documentation
        if b[0] == 0x20, b[1] == 0x02 {                                    // 2002::/16 6to4 carries an IPv4
            return kindIPv4(b[2], b[3], b[4], b[5]) == .public ? .public : .reserved
        }
        if b[0] == 0x01, b[1] == 0x00, b[2..<8].allSatisfy({ $0 == 0 }) { return .reserved }   // 100::/64 discard
        // Only 2000::/3 is globally routed unicast.
        return b[0] & 0xe0 == 0x20 ? .public : .reserved
    }
}

extension NetworkAddress {
    /// Parses dotted IPv4 or textual IPv6 (with `::` and an IPv4 tail; no zone). nil otherwise.
    package init?(_ text: String) {
        if let v4 = Self.parseIPv4(Substring(text)) {
            self.bytes = v4
        } else if let v6 = Self.parseIPv6(text) {
            self.bytes = v6
        } else {
            return nil
        }
    }

    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = UInt8(part), part == "0" || !part.hasPrefix("0") else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func parseIPv6(_ text: String) -> [UInt8]? {
        guard text.contains(":") else { return nil }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String, allowIPv4Tail: Bool) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, allowIPv4Tail, piece.contains(".") {
                    guard let v4 = parseIPv4(piece) else { return nil }
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
            return bytes
        }
        if halves.count == 1 {
            guard let bytes = groups(text, allowIPv4Tail: true), bytes.count == 16 else { return nil }
            return bytes
        }
        guard let head = groups(halves[0], allowIPv4Tail: false), let tail = groups(halves[1], allowIPv4Tail: true),
              head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
