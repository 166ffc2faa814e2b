/// One entry of the push-service host list a browser subscription's endpoint must be on
/// (`OPENPUSH_WEB_PUSH_HOSTS`): a host name, or `*.example.com` for every subdomain of it (not
/// the name itself). Names compare without case.
package enum WebPushHostPattern: Sendable, Hashable, CustomStringConvertible {
    case exact(String)
    case suffix(String)

    /// The default list: the push services of Chrome, Firefox, Safari and Edge.
    package static let defaults: [WebPushHostPattern] = WebPushBrowser.allCases.map(\.hostPattern)

    /// `text` as a pattern (`*.` prefix: a suffix); nil when it is not an ASCII host name.
    package init?(_ text: some StringProtocol) {
        let lowered = text.lowercased()
        let isSuffix = lowered.hasPrefix("*.")
        let name = isSuffix ? String(lowered.dropFirst(2)) : lowered
        guard WebhookURL.isPlainHost(Substring(name), bracketed: false) else { return nil }
        self = isSuffix ? .suffix(name) : .exact(name)
    }

    /// A comma-separated list (spaces allowed around entries); nil when an entry is malformed
    /// or the list is empty.
    package static func list(_ text: String) -> [WebPushHostPattern]? {
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: " \t") }.filter { !$0.isEmpty }
        guard !entries.isEmpty else { return nil }
        var patterns: [WebPushHostPattern] = []
        for entry in entries {
            guard let pattern = WebPushHostPattern(entry) else { return nil }
            patterns.append(pattern)
        }
        return patterns
    }

    package func matches(_ host: some StringProtocol) -> Bool {
        let lowered = host.lowercased()
        switch self {
        case .exact(let name): return lowered == name
        case .suffix(let name): return lowered.hasSuffix("." + name) && lowered.count > name.count + 1
        }
    }

    package var description: String {
        switch self {
        case .exact(let name): name
        case .suffix(let name): "*." + name
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}
