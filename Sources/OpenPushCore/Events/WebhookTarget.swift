/// Where a webhook URL points: scheme, host (an IPv6 literal without brackets) and port. Only
/// what sending needs; the routes validate URLs when they are stored.
package struct WebhookTarget: Sendable, Equatable {
    package var scheme: String
    package var host: String
    package var port: Int

    package init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// nil when the URL is not `http(s)://host[:port][/…]` with a host.
    package init?(url: String) {
        guard let separator = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        var authority = url[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { return nil }
        let port: Int
        if let portText {
            guard let parsed = Int(portText), (1...65535).contains(parsed) else { return nil }
            port = parsed
        } else {
            port = scheme == "https" ? 443 : 80
        }
        self.init(scheme: scheme, host: host.lowercased(), port: port)
    }

    /// The `CURLOPT_RESOLVE` host part: an IPv6 literal in brackets, as in the URL.
    package var resolveHost: String { host.contains(":") ? "[\(host)]" : host }
}
