/// A webhook endpoint's URL as the app gives it, checked before it is stored: `https://` with a
/// host, at most `maxLength` characters, a host that is an ASCII host name or an IP literal
/// (whatever the deployment allows), and no literal private, loopback, link-local,
/// unique-local or unspecified address and no `localhost` — unless the deployment allows private
/// endpoints (`OPENPUSH_WEBHOOKS_ALLOW_PRIVATE=1`, for `openpush dev` and tests), which also
/// allows `http://`. A host name that resolves to a private address is refused at send time.
package enum WebhookURL {
    package static let maxLength = 2048

    package enum Problem: Error, Sendable, Equatable {
        case tooLong, notHTTPS, noHost, privateAddress, malformed, badHost

        package var message: String {
            switch self {
            case .tooLong: "url must be \(WebhookURL.maxLength) characters or fewer"
            case .notHTTPS: "url must be an https:// URL"
            case .noHost: "url must have a host"
            case .privateAddress: "url must not point at a private, loopback or link-local address"
            case .malformed: "url must be a URL without spaces, control characters or credentials"
            case .badHost:
                "url must have an ASCII host name (letters, digits, '-' and '.', punycode 'xn--' labels for other scripts, "
                    + "no empty label or trailing dot) or an IP address"
            }
        }
    }

    /// The URL's problem, or nil when it may be stored.
    package static func problem(_ url: String, allowPrivate: Bool) -> Problem? {
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
        // Before the address rules, and whatever they allow: libcurl percent-decodes and
        // IDN-converts a host itself, so a name it would rewrite is not the name checked here.
        guard isPlainHost(host, bracketed: authority.hasPrefix("[")) else { return .badHost }
        if !allowPrivate, isPrivateHost(host) { return .privateAddress }
        return nil
    }

    /// The longest host name DNS carries, and its longest label.
    static let maxHostLength = 253
    static let maxLabelLength = 63

    /// An IPv6 literal (from inside brackets) that `NetworkAddress` parses, with no zone; or a
    /// host name of ASCII letters, digits and `-` in non-empty dot-separated labels (an IPv4
    /// literal is one too), with no trailing dot. Nothing libcurl would decode or convert.
    package static func isPlainHost(_ host: Substring, bracketed: Bool) -> Bool {
        if bracketed { return host.contains(":") && NetworkAddress(String(host)) != nil }
        guard host.utf8.count <= maxHostLength else { return false }
        let labels = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= maxLabelLength && label.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            }
        }
    }

    /// The problem a stored URL has at send time, whatever the deployment allows: what the
    /// routes refuse at create and update for every deployment (a row stored before these
    /// checks, or written by other means, is refused again here).
    package static func sendProblem(_ url: String) -> Problem? {
        problem(url, allowPrivate: true)
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

    /// `localhost` (and its subdomains), or a literal address inside a network: unspecified,
    /// loopback, private, link-local, unique-local or multicast, as `NetworkAddress` classes it.
    /// Reserved ranges are left to the check at send time, which refuses every non-public answer.
    package static func isPrivateHost(_ host: Substring) -> Bool {
        var name = host
        while name.hasSuffix(".") { name = name.dropLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let address: NetworkAddress?
        if let v4 = ipv4(name) {
            address = NetworkAddress(bytes: [UInt8(v4 >> 24), UInt8(v4 >> 16 & 255), UInt8(v4 >> 8 & 255), UInt8(v4 & 255)])
        } else if name.contains(":") {
            // A `%zone` names an interface: the address before it decides.
            let literal = name.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard let parsed = NetworkAddress(String(literal)) else { return true }  // unparsable literal: refuse rather than guess
            address = parsed
        } else {
            return false
        }
        guard let kind = address?.kind else { return true }
        return kind != .public && kind != .reserved
    }

    /// An IPv4 literal in any form a resolver accepts (`inet_aton`): 1–4 parts, each decimal,
    /// `0x` hex or `0` octal, the last filling the remaining bytes (`127.1`, `2130706433`).
    package static func ipv4(_ text: Substring) -> UInt32? {
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
}
