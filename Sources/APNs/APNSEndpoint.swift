import Foundation

/// Where a pool connects: `https://host[:port]` (TLS, ALPN h2) or `http://host:port`
/// (cleartext h2c with prior knowledge, for the local simulator only).
struct APNSEndpoint: Sendable, Hashable {
    var usesTLS: Bool
    var host: String
    var port: UInt16
    /// `:authority`: the host, plus the port when it is not the scheme's default.
    var authority: String
    /// `:scheme`.
    var scheme: String { usesTLS ? "https" : "http" }

    init(url: String) throws(APNSConfigurationError) {
        guard let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.host, !host.isEmpty
        else { throw APNSConfigurationError("not an http:// or https:// URL with a host: \(url)") }
        guard components.path.isEmpty || components.path == "/", components.query == nil else {
            throw APNSConfigurationError("an APNs endpoint has no path or query: \(url)")
        }
        usesTLS = scheme == "https"
        let defaultPort: UInt16 = usesTLS ? 443 : 80
        if let port = components.port {
            guard let valid = UInt16(exactly: port), valid > 0 else { throw APNSConfigurationError("bad port in \(url)") }
            self.port = valid
        } else {
            port = defaultPort
        }
        // URLComponents drops the brackets of an IPv6 literal; the authority needs them back.
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.host = bare
        let hostPart = bare.contains(":") ? "[\(bare)]" : bare
        authority = port == defaultPort ? hostPart : "\(hostPart):\(port)"
    }
}

/// A client configuration that cannot work (a bad endpoint URL).
package struct APNSConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
