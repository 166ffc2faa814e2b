/// A webhook endpoint's URL as the app gives it, checked before it is stored: `https://` with a
/// host, at most `maxLength` characters, and no literal private, loopback, link-local,
/// unique-local or unspecified address and no `localhost` — unless the deployment allows private
/// endpoints (`OPENPUSH_WEBHOOKS_ALLOW_PRIVATE=1`, for `openpush dev` and tests), which also
/// allows `http://`. A host name that resolves to a private address is refused at send time.
public enum WebhookURL {
    public static let maxLength = 2048

    public enum Problem: Error, Sendable, Equatable {
        case tooLong, notHTTPS, noHost, privateAddress, malformed

        public var message: String {
            switch self {
            case .tooLong: "url must be \(WebhookURL.maxLength) characters or fewer"
            case .notHTTPS: "url must be an https:// URL"
            case .noHost: "url must have a host"
            case .privateAddress: "url must not point at a private, loopback or link-local address"
            case .malformed: "url must be a URL without spaces, control characters or credentials"
            }
        }
    }

    /// The URL's problem, or nil when it may be stored.
    public static func problem(_ url: String, allowPrivate: Bool) -> Problem? {
        guard url.count <= maxLength else { return .tooLong }
        let lowered = url.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            rest = lowered.dropFirst("https://".count)
        } else if allowPrivate, lowered.hasPrefix("http://") {
            rest = lowered.dropFirst("http://".count)
        } else {
            return .notHTTPS
        }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return .malformed }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return .malformed }
        guard let host = host(of: authority) else { return authority.isEmpty ? .noHost : .malformed }
        guard !host.isEmpty else { return .noHost }
        if !allowPrivate, isPrivateHost(host) { return .privateAddress }
        return nil
    }

    /// The host of `host[:port]` or `[v6][:port]` (brackets removed); nil when malformed.
    static func host(of authority: Substring) -> Substring? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || isPort(after) else { return nil }
            return authority[authority.index(after: authority.startIndex)..<close]
        }
        guard let colon = authority.firstIndex(of: ":") else { return authority }
        guard isPort(authority[colon...]) else { return nil }
        return authority[..<colon]
    }

    /// `:` then 1–5 digits up to 65535.
    private static func isPort(_ text: Substring) -> Bool {
        guard text.first == ":", let port = Int(text.dropFirst()), (1...65535).contains(port) else { return false }
        return text.dropFirst().allSatisfy(\.isASCII) && text.count <= 6
    }

    /// `localhost` (and its subdomains), or a literal address in a range no public endpoint has.
    public static func isPrivateHost(_ host: Substring) -> Bool {
        var name = host
        while name.hasSuffix(".") { name = name.dropLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if let v4 = ipv4(name) { return isPrivate(ipv4: v4) }
        if name.contains(":") {
            guard let v6 = ipv6(name) else { return true }  // unparsable literal: refuse rather than guess
            return isPrivate(ipv6: v6)
        }
        return false
    }

    /// An IPv4 literal in any form a resolver accepts (`inet_aton`): 1–4 parts, each decimal,
    /// `0x` hex or `0` octal, the last filling the remaining bytes (`127.1`, `2130706433`).
    public static func ipv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard !part.isEmpty else { return nil }
            let value: UInt64?
            if part.hasPrefix("0x") {
                value = part.count > 2 ? UInt64(part.dropFirst(2), radix: 16) : 0
            } else if part.count > 1, part.hasPrefix("0") {
                value = UInt64(part.dropFirst(), radix: 8)
            } else {
                value = part.allSatisfy(\.isNumber) ? UInt64(part) : nil
            }
            guard let value, value <= UInt64(UInt32.max) else { return nil }
            values.append(value)
        }
        var address: UInt64 = 0
        for value in values.dropLast() {
            guard value <= 255 else { return nil }
            address = address << 8 | value
        }
        let remainingBits = UInt64(8 * (5 - values.count))
        guard let last = values.last, last < (1 << remainingBits) else { return nil }
        return UInt32(address << remainingBits | last)
    }

    public static func isPrivate(ipv4 address: UInt32) -> Bool {
        func within(_ base: UInt32, _ bits: UInt32) -> Bool { address >> (32 - bits) == base >> (32 - bits) }
        return within(0x0000_0000, 8)        // 0.0.0.0/8, unspecified
            || within(0x0A00_0000, 8)        // 10/8
            || within(0x6440_0000, 10)       // 100.64/10, carrier-grade NAT
            || within(0x7F00_0000, 8)        // 127/8, loopback
            || within(0xA9FE_0000, 16)       // 169.254/16, link-local
            || within(0xAC10_0000, 12)       // 172.16/12
            || within(0xC0A8_0000, 16)       // 192.168/16
            || within(0xC000_0000, 24)       // 192.0.0/24, IETF protocol assignments
            || within(0xC612_0000, 15)       // 198.18/15, benchmarking
            || within(0xE000_0000, 3)        // 224/3: multicast and reserved, 255.255.255.255
    }

    /// 16 bytes of an IPv6 literal (`::` shorthand, an embedded IPv4 tail, a `%zone` dropped).
    public static func ipv6(_ text: Substring) -> [UInt8]? {
        let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let halves = splitDoubleColon(address)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = ipv4(piece), piece.split(separator: ".").count == 4 {
                    bytes += [UInt8(v4 >> 24), UInt8(v4 >> 16 & 255), UInt8(v4 >> 8 & 255), UInt8(v4 & 255)]
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 255)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// `text` split at each `::`.
    private static func splitDoubleColon(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == ":", next < text.endIndex, text[next] == ":" {
                parts.append(text[start..<index])
                start = text.index(after: next)
                index = start
            } else {
                index = next
            }
        }
        parts.append(text[start...])
        return parts
    }

    public static func isPrivate(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        if bytes.allSatisfy({ $0 == 0 }) { return true }                                   // ::
        if bytes.dropLast().allSatisfy({ $0 == 0 }), bytes[15] == 1 { return true }        // ::1
        if bytes[0] & 0xFE == 0xFC { return true }                                         // fc00::/7 unique-local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return true }                       // fe80::/10 link-local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return true }                       // fec0::/10 site-local
        if bytes[0] == 0xFF { return true }                                                // multicast
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): the IPv4 address decides.
        let v4 = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
        if bytes[0..<10].allSatisfy({ $0 == 0 }), (bytes[10] == 0xFF && bytes[11] == 0xFF) || (bytes[10] == 0 && bytes[11] == 0) {
            return isPrivate(ipv4: v4)
        }
        // NAT64 (64:ff9b::/96) embeds an IPv4 address too.
        if bytes[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0][...] { return isPrivate(ipv4: v4) }
        return false
    }
}
