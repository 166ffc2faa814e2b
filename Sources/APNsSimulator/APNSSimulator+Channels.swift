import Crypto
import Foundation
import HTTP2
import OpenPushCore

/// Broadcast channels, as Apple's channel management hosts and the broadcast endpoint of the
/// push hosts answer them ("Sending channel management requests to APNs", "Sending broadcast
/// push notification requests to APNs"). One simulator serves both hosts on its one port; a
/// channel lives in the simulator that made it, so a second simulator standing for the other
/// environment answers `ChannelNotRegistered` for it, as APNs does across environments.
///
/// | request | answer |
/// |---|---|
/// | `POST /1/apps/{bundle}/channels` `{"message-storage-policy": 0\|1, "push-type": "LiveActivity"}` | 201, `apns-channel-id` |
/// | `GET /1/apps/{bundle}/channels` + `apns-channel-id` | 200 `{"message-storage-policy", "push-type"}` |
/// | `DELETE /1/apps/{bundle}/channels` + `apns-channel-id` | 204 |
/// | `GET /1/apps/{bundle}/all-channels` | 200 `{"channels": […]}` |
/// | `POST /4/broadcasts/apps/{bundle}` + `apns-channel-id` | 200, recorded in `GET /pushes` with its `channel_id` |
///
/// Every answer carries `apns-request-id` (the request's, or a new one).
extension APNSSimulator {
    struct SimulatedChannel: Sendable, Equatable {
        var bundleID: String
        var storagePolicy: Int
    }

    /// Which requests on a channel an injected error answers.
    package enum ChannelOperation: String, Sendable, CaseIterable {
        /// `POST /4/broadcasts/…` to it.
        case broadcast
        /// `GET` and `DELETE` of it on the management host.
        case manage
    }

    struct ChannelTable: Sendable {
        /// Channel id → channel.
        var channels: [String: SimulatedChannel] = [:]
        var behaviours: [String: Behaviour] = [:]

        static func key(_ channelID: String, _ operation: ChannelOperation) -> String { operation.rawValue + " " + channelID }
    }

    /// Apple allows this many channels per app and environment (`CannotCreateChannelConfig` beyond).
    static let maxChannelsPerApp = 10_000

    /// What a channel request got: its status, headers and body, and a broadcast to record.
    struct ChannelAnswer {
        var status: Int
        var headers: [HTTP2Header]
        var body: [UInt8]
        var broadcast: RecordedPush?
    }

    /// Answers the error `behaviour` for `operation` on `channelID`; `nil` takes it back.
    package func setChannelBehaviour(_ behaviour: Behaviour?, channelID: String, operation: ChannelOperation) {
        state.withLock { $0.channels.behaviours[ChannelTable.key(channelID, operation)] = behaviour }
    }

    /// The channels that exist now: (channel id, bundle id, storage policy).
    package func channels() -> [(channelID: String, bundleID: String, storagePolicy: Int)] {
        state.withLock { state in
            state.channels.channels.sorted { $0.key < $1.key }.map { ($0.key, $0.value.bundleID, $0.value.storagePolicy) }
        }
    }

    /// Whether `path` is on the channel management (`/1`) or broadcast (`/4`) hosts: `/1`, `/4`,
    /// or under them.
    static func isChannelPath(_ path: String) -> Bool {
        let bytes = path.utf8
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "/") else { return false }
        let version = bytes[bytes.index(after: bytes.startIndex)]
        guard version == UInt8(ascii: "1") || version == UInt8(ascii: "4") else { return false }
        let rest = bytes.dropFirst(2)
        return rest.isEmpty || rest.first == UInt8(ascii: "/") || rest.first == UInt8(ascii: "?")
    }

    /// The answer to a channel management or broadcast request, or `nil` for any other path.
    func channelAnswer(_ request: HTTP2ServerSession.Request, now: Date,
                       verifiedTokens: inout [String: APNSSimulatorProviderToken],
                       certificate: APNSSimulatorClientCertificate? = nil) -> ChannelAnswer? {
        var path = request.path ?? ""
        // Every device push comes this way first: it costs one prefix check, not a split.
        guard Self.isChannelPath(path) else { return nil }
        if let query = path.utf8.firstIndex(of: UInt8(ascii: "?")) { path = String(path[..<query]) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "", "1", "apps", bundle, "channels" | "all-channels"; "", "4", "broadcasts", "apps", bundle.
        let requestID = request.value("apns-request-id").flatMap { APNSSimulatorRequestCheck.isUUID($0) ? $0 : nil }
            ?? APNSSimulatorConnection.makeAPNSID()
        func answer(_ status: Int, _ reason: String? = nil, headers extra: [HTTP2Header] = [], body: JSONValue? = nil,
                    broadcast: RecordedPush? = nil) -> ChannelAnswer {
            var headers = [HTTP2Header(name: "apns-request-id", value: requestID)] + extra
            var bytes: [UInt8] = []
            if let reason {
                bytes = JSONValue.object(["reason": .string(reason)]).serializedBytes
            } else if let body {
                bytes = body.serializedBytes
            }
            if !bytes.isEmpty { headers.append(HTTP2Header(name: "content-type", value: "application/json")) }
            return ChannelAnswer(status: status, headers: headers, body: bytes, broadcast: broadcast)
        }
        let isManagement = segments.count == 5 && segments[1] == "1" && segments[2] == "apps"
            && ["channels", "all-channels"].contains(segments[4])
        let isBroadcast = segments.count == 5 && segments[1] == "4" && segments[2] == "broadcasts" && segments[3] == "apps"
        guard isManagement || isBroadcast else {
            return segments.count > 1 && ["1", "4"].contains(segments[1]) ? answer(404, "BadPath") : nil
        }
        let bundleID = isBroadcast ? segments[4] : segments[3]
        let method = request.method ?? ""
        let allowed = isBroadcast ? ["POST"] : segments[4] == "all-channels" ? ["GET"] : ["POST", "GET", "DELETE"]
        guard allowed.contains(method) else { return answer(405, "MethodNotAllowed") }
        if certificate == nil,
           let rejection = requestCheck.checkProviderToken(request.value("authorization"), now: now, verifiedTokens: &verifiedTokens),
           case .rejected(let status, let reason) = rejection {
            return answer(status, reason)
        }
        guard !bundleID.isEmpty else { return answer(404, "BadPath") }
        if let certificate {
            if !certificate.topics.contains(bundleID) { return answer(400, "TopicDisallowed") }
        } else if let bundleIDs = requestCheck.bundleIDs, !bundleIDs.contains(bundleID) {
            return answer(400, "TopicDisallowed")
        }
        if let requested = request.value("apns-request-id"), !APNSSimulatorRequestCheck.isUUID(requested) {
            return answer(400, "BadMessageId")
        }

        if isManagement && segments[4] == "all-channels" {
            let ids = state.withLock { state in
                state.channels.channels.filter { $0.value.bundleID == bundleID }.keys.sorted()
            }
            return answer(200, body: ["channels": .array(ids.map(JSONValue.string))])
        }
        if isManagement && method == "POST" {
            guard let object = (try? JSONValue.parse(request.body))?.objectValue else { return answer(400, "PayloadEmpty") }
            guard let pushType = object["push-type"]?.stringValue else { return answer(400, "MissingPushType") }
            guard pushType == "LiveActivity" else { return answer(400, "InvalidPushType") }
            guard let policy = object["message-storage-policy"]?.intValue, policy == 0 || policy == 1 else {
                return answer(400, "BadMessageStoragePolicy")
            }
            let created: String? = state.withLock { state in
                guard state.channels.channels.values.count(where: { $0.bundleID == bundleID }) < Self.maxChannelsPerApp else {
                    return nil
                }
                var id: String
                repeat { id = Data(SecureRandom.bytes(16)).base64EncodedString() } while state.channels.channels[id] != nil
                state.channels.channels[id] = SimulatedChannel(bundleID: bundleID, storagePolicy: Int(policy))
                return id
            }
            guard let created else { return answer(400, "CannotCreateChannelConfig") }
            return answer(201, headers: [HTTP2Header(name: "apns-channel-id", value: created)])
        }

        // Everything else names a channel.
        if isBroadcast {
            guard let pushType = request.value("apns-push-type") else { return answer(400, "MissingPushType") }
            guard pushType == "liveactivity" else { return answer(400, "InvalidPushType") }
        }
        guard let channelID = request.value("apns-channel-id"), !channelID.isEmpty else { return answer(400, "MissingChannelId") }
        guard let decoded = Data(base64Encoded: channelID), !decoded.isEmpty else { return answer(400, "BadChannelId") }
        let operation: ChannelOperation = isBroadcast ? .broadcast : .manage
        let (channel, injected) = state.withLock { state in
            (state.channels.channels[channelID], state.channels.behaviours[ChannelTable.key(channelID, operation)])
        }
        guard let channel, channel.bundleID == bundleID else { return answer(400, "ChannelNotRegistered") }
        if let injected, injected.status != 200 { return answer(injected.status, injected.reason ?? "InternalServerError") }

        if isManagement {
            if method == "GET" {
                return answer(200, body: ["message-storage-policy": .int(Int64(channel.storagePolicy)), "push-type": "LiveActivity"])
            }
            state.withLock { _ = $0.channels.channels.removeValue(forKey: channelID) }
            return answer(204)
        }
        if let priority = request.value("apns-priority"), !["1", "5", "10"].contains(priority) { return answer(400, "BadPriority") }
        if let expiration = request.value("apns-expiration"), UInt64(expiration) == nil { return answer(400, "BadExpirationDate") }
        guard request.body.count <= APNSBroadcastRequest.maxPayloadBytes else { return answer(413, "PayloadTooLarge") }
        guard let payload = (try? JSONValue.parse(request.body))?.objectValue, payload["aps"]?.objectValue != nil else {
            return answer(400, "PayloadEmpty")
        }
        let push = RecordedPush(deviceToken: "", apnsID: requestID, headers: request.headers.filter { !$0.name.hasPrefix(":") },
                                payload: request.body, receivedAt: now, channelID: channelID)
        return answer(200, broadcast: push)
    }

    /// `GET /channels`, `POST /channels/behaviours`, `DELETE /channels/behaviours/{channel_id}`.
    func channelControl(method: String, path: String, parts: [String], body: [UInt8]) -> ControlResponse {
        switch (method, parts) {
        case ("GET", []):
            let list: [JSONValue] = channels().map { channel in
                ["channel_id": .string(channel.channelID), "bundle_id": .string(channel.bundleID),
                 "message_storage_policy": .int(Int64(channel.storagePolicy)), "push_type": "LiveActivity"]
            }
            return ControlResponse(status: 200, body: ["channels": .array(list)])
        case ("POST", ["behaviours"]):
            guard let object = (try? JSONValue.parse(body))?.objectValue else { return Self.error(400, "expected a JSON object") }
            guard let channelID = object["channel_id"]?.stringValue, !channelID.isEmpty else {
                return Self.error(400, "channel_id must be a channel id")
            }
            guard let status = object["status"]?.intValue, (400...599).contains(status) else {
                return Self.error(400, "status must be an HTTP error status from 400 to 599")
            }
            guard let reason = object["reason"]?.stringValue, !reason.isEmpty else {
                return Self.error(400, "reason must be Apple's reason, e.g. \"TooManyRequests\"")
            }
            let name = object["operation"]?.stringValue ?? ChannelOperation.broadcast.rawValue
            guard let operation = ChannelOperation(rawValue: name) else {
                return Self.error(400, "operation must be \"broadcast\" or \"manage\"")
            }
            setChannelBehaviour(Behaviour(status: Int(status), reason: reason), channelID: channelID, operation: operation)
            return ControlResponse(status: 200, body: [
                "channel_id": .string(channelID), "status": .int(status), "reason": .string(reason),
                "operation": .string(operation.rawValue),
            ])
        case ("DELETE", let rest) where rest.count >= 2 && rest[0] == "behaviours":
            // A base64 id may hold '/', two in a row or one first: the id is the rest of the path
            // as sent (its segments joined again would lose those), encoded or not.
            let marker = "channels/behaviours/"
            let raw = path.range(of: marker).map { String(path[$0.upperBound...]) } ?? rest.dropFirst().joined(separator: "/")
            let channelID = raw.removingPercentEncoding ?? raw
            let removed = state.withLock { state in
                ChannelOperation.allCases.compactMap { state.channels.behaviours.removeValue(forKey: ChannelTable.key(channelID, $0)) }
            }
            return removed.isEmpty ? Self.error(404, "no behaviour for channel '\(channelID)'") : ControlResponse(status: 204)
        default:
            return Self.error(405, "method \(method) not allowed on /channels/\(parts.joined(separator: "/"))")
        }
    }
}
