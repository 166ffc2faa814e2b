/// A webhook's signature, sent as the `OpenPush-Signature` header:
/// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, with one more `v1` per secret
/// that still signs (the previous one, for 24 h after a rotation).
/// The MAC itself is computed by the caller (OpenSSL); this is what it is computed over.
package enum WebhookSignature {
    /// Receivers should refuse a `t` older than this (docs/api/webhooks.md says so).
    package static let toleranceSeconds = 300

    /// The bytes signed: `"<t>.<body>"`.
    package static func signedPayload(timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }

    /// `t=…,v1=…[,v1=…]`, one `v1` per hex MAC, in the order given (the current secret first).
    package static func header(timestamp: Int64, signatures: [String]) -> String {
        (["t=\(timestamp)"] + signatures.map { "v1=\($0)" }).joined(separator: ",")
    }

    /// The secrets that sign at `now`: the current one, and the previous one while its
    /// `previousUntil` (unix seconds) is in the future.
    package static func signingSecrets(current: String, previous: String?, previousUntil: Double?, now: Double) -> [String] {
        guard let previous, let previousUntil, previousUntil > now else { return [current] }
        return [current, previous]
    }

    /// A received header's parts, for receivers written in Swift and for tests.
    package static func parse(_ header: String) -> (timestamp: Int64, signatures: [String])? {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            switch pair[0] {
            case "t": timestamp = Int64(pair[1])
            case "v1": signatures.append(pair[1])
            default: continue
            }
        }
        guard let timestamp, !signatures.isEmpty else { return nil }
        return (timestamp, signatures)
    }
}
