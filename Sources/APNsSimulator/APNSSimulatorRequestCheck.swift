import Crypto
import Foundation
import HTTP2

/// What Apple checks on `POST /3/device/<token>`, as a pure function of the request, the
/// time, and the keys: the simulator's rules, tested without sockets.
///
/// Order: path and method, device token, duplicate headers, provider token, topic and push
/// type, priority, `apns-id`, collapse id, expiration, payload size and content. The first
/// failure answers.
struct APNSSimulatorRequestCheck: Sendable {
    enum Verdict: Equatable {
        case accepted(deviceToken: String)
        case rejected(status: Int, reason: String)
    }

    /// Key id → verifying key. Ignored when `acceptAnyToken`.
    var providerKeys: [String: P256VerifyingKey]
    var acceptAnyToken: Bool
    /// Bundle ids the keys may push to; `nil` allows any (TopicDisallowed otherwise).
    var bundleIDs: Set<String>?
    /// APNs refuses provider tokens older than an hour.
    var tokenLifetime: TimeInterval = 3600
    /// Clock skew tolerated for an `iat` in the future.
    var futureSkew: TimeInterval = 60

    static let maxPayloadSize = 4096
    /// Apple lets a VoIP push be larger than the others.
    static let maxVoIPPayloadSize = 5120
    static let maxCollapseIDSize = 64

    /// Topic suffix each push type requires ("" = the bare bundle id).
    static let topicSuffixes: [String: String] = [
        "alert": "", "background": "", "mdm": "",
        "voip": ".voip", "complication": ".complication", "fileprovider": ".pushkit.fileprovider",
        "location": ".location-query", "pushtotalk": ".voip-ptt",
        "liveactivity": ".push-type.liveactivity", "widgets": ".push-type.widgets",
    ]

    /// Headers APNs refuses to see twice.
    static let singleHeaders: Set<String> = [
        "authorization", "apns-id", "apns-topic", "apns-push-type", "apns-priority",
        "apns-expiration", "apns-collapse-id",
    ]

    /// - Parameters:
    ///   - verifiedTokens: provider tokens already verified on this connection, so a client
    ///     reusing its token (as it must) costs one signature check per connection.
    ///   - certificate: the connection's verified client certificate: it stands in for the
    ///     provider token, and the topic must be one of its own.
    func check(_ request: HTTP2ServerSession.Request, now: Date,
               verifiedTokens: inout [String: APNSSimulatorProviderToken],
               certificate: APNSSimulatorClientCertificate? = nil) -> Verdict {
        var path = request.path ?? ""
        if let query = path.utf8.firstIndex(of: UInt8(ascii: "?")) { path = String(path[..<query]) }
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { return .rejected(status: 404, reason: "BadPath") }
        guard request.method == "POST" else { return .rejected(status: 405, reason: "MethodNotAllowed") }
        let token = String(path.dropFirst(prefix.count))
        guard !token.isEmpty else { return .rejected(status: 400, reason: "MissingDeviceToken") }
        guard Self.isDeviceToken(token) else { return .rejected(status: 400, reason: "BadDeviceToken") }

        var seen: Set<String> = []
        for header in request.headers where Self.singleHeaders.contains(header.name) {
            guard seen.insert(header.name).inserted else { return .rejected(status: 400, reason: "DuplicateHeaders") }
        }

        if certificate == nil,
           let rejection = checkProviderToken(request.value("authorization"), now: now, verifiedTokens: &verifiedTokens) {
            return rejection
        }
        if let rejection = checkTopic(request.value("apns-topic"), pushType: request.value("apns-push-type"),
                                      certificate: certificate) {
            return rejection
        }
        if let priority = request.value("apns-priority"), !["1", "5", "10"].contains(priority) {
            return .rejected(status: 400, reason: "BadPriority")
        }
        if let apnsID = request.value("apns-id"), !Self.isUUID(apnsID) {
            return .rejected(status: 400, reason: "BadMessageId")
        }
        if let collapseID = request.value("apns-collapse-id"), collapseID.utf8.count > Self.maxCollapseIDSize {
            return .rejected(status: 400, reason: "BadCollapseId")
        }
        if let expiration = request.value("apns-expiration"), UInt64(expiration) == nil {
            return .rejected(status: 400, reason: "BadExpirationDate")
        }
        let limit = request.value("apns-push-type") == "voip" ? Self.maxVoIPPayloadSize : Self.maxPayloadSize
        guard request.body.count <= limit else { return .rejected(status: 413, reason: "PayloadTooLarge") }
        // Apple names no reason for a payload that is not a JSON object; PayloadEmpty is the nearest.
        guard APNSSimulatorJSONSyntax.isObject(request.body) else {
            return .rejected(status: 400, reason: "PayloadEmpty")
        }
        return .accepted(deviceToken: token)
    }

    func checkProviderToken(_ authorization: String?, now: Date,
                                    verifiedTokens: inout [String: APNSSimulatorProviderToken]) -> Verdict? {
        if acceptAnyToken { return nil }
        guard let authorization else { return .rejected(status: 403, reason: "MissingProviderToken") }
        let token: APNSSimulatorProviderToken
        if let known = verifiedTokens[authorization] {
            token = known
        } else {
            guard let parsed = APNSSimulatorProviderToken(authorization: authorization),
                  let key = providerKeys[parsed.keyID],
                  key.isValidES256Signature(parsed.signature, for: parsed.signingInput)
            else { return .rejected(status: 403, reason: "InvalidProviderToken") }
            // A connection sees one token an hour; a handful is plenty to remember.
            if verifiedTokens.count >= 8 { verifiedTokens.removeAll() }
            verifiedTokens[authorization] = parsed
            token = parsed
        }
        if token.issuedAt.timeIntervalSince(now) > futureSkew {
            return .rejected(status: 403, reason: "InvalidProviderToken")
        }
        if now.timeIntervalSince(token.issuedAt) > tokenLifetime {
            return .rejected(status: 403, reason: "ExpiredProviderToken")
        }
        return nil
    }

    /// Apple does not document which reason a topic/push-type mismatch gets; ours: a topic
    /// missing the suffix its push type needs is InvalidPushType, a topic carrying another
    /// push type's suffix is BadTopic.
    private func checkTopic(_ topic: String?, pushType: String?, certificate: APNSSimulatorClientCertificate?) -> Verdict? {
        guard let topic, !topic.isEmpty else { return .rejected(status: 400, reason: "MissingTopic") }
        // No spaces, controls or slashes: a bundle id is reverse-DNS text.
        guard !topic.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") }) else {
            return .rejected(status: 400, reason: "BadTopic")
        }
        let type = pushType ?? Self.inferredPushType(topic: topic)
        guard let suffix = Self.topicSuffixes[type] else { return .rejected(status: 400, reason: "InvalidPushType") }
        if !suffix.isEmpty {
            guard topic.hasSuffix(suffix), topic.count > suffix.count else {
                return .rejected(status: 400, reason: "InvalidPushType")
            }
        } else if Self.topicSuffixes.values.contains(where: { !$0.isEmpty && topic.hasSuffix($0) }) {
            return .rejected(status: 400, reason: "BadTopic")
        }
        let bundleID = String(topic.dropLast(suffix.count))
        if let certificate {
            return certificate.allows(topic: topic, bundleID: bundleID) ? nil : .rejected(status: 400, reason: "TopicDisallowed")
        }
        if let bundleIDs, !bundleIDs.contains(bundleID) {
            return .rejected(status: 400, reason: "TopicDisallowed")
        }
        return nil
    }

    /// Without `apns-push-type`, APNs goes by the topic: a suffixed topic implies its type.
    static func inferredPushType(topic: String) -> String {
        topicSuffixes.first { !$0.value.isEmpty && topic.hasSuffix($0.value) }?.key ?? "alert"
    }

    /// Hex, even length, 64–512 digits: device tokens are 32 bytes, Live Activity tokens longer.
    static func isDeviceToken(_ token: String) -> Bool {
        let count = token.utf8.count
        return count % 2 == 0 && (64...512).contains(count) && token.utf8.allSatisfy(\.isASCIIHexDigit)
    }

    /// The canonical 8-4-4-4-12 hex form, either case.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !byte.isASCIIHexDigit {
                return false
            }
        }
        return true
    }
}
