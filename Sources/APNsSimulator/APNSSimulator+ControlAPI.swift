package import OpenPushCore

extension APNSSimulator {
    /// An answer of the control API: status and JSON body (`nil` = no body).
    package struct ControlResponse: Sendable, Equatable {
        package var status: Int
        package var body: JSONValue?

        package init(status: Int, body: JSONValue? = nil) {
            self.status = status
            self.body = body
        }
    }

    /// The control API, independent of any HTTP server so the executable can publish it
    /// over HTTP/1.1 and tests can call it directly:
    ///
    /// | request | effect |
    /// |---|---|
    /// | `GET /pushes` | `{"accepted_count": N, "pushes": [{token, apns_id, headers, payload, received_at}, …]}`, oldest first; `?token=` filters, `?limit=N` keeps the newest N |
    /// | `DELETE /pushes` | forget recorded pushes (204) |
    /// | `GET /behaviours` | `{"behaviours": [{token_prefix, status, reason, delay_ms}, …]}` |
    /// | `POST /behaviours` `{"token_prefix": "dead", "status": 410, "reason": "Unregistered", "delay_ms": 0}` | set one (200) |
    /// | `DELETE /behaviours/{prefix}` | remove one (204, 404 if unknown) |
    /// | `POST /goaway` `{"after_streams": N}` (`null` = off) | GOAWAY after N streams per connection (200) |
    /// | `GET /channels` | `{"channels": [{bundle_id, channel_id, message_storage_policy, push_type}, …]}` |
    /// | `POST /channels/behaviours` `{"channel_id": "…", "status": 400, "reason": "…", "operation": "broadcast"}` | answer that channel's broadcasts (or `"manage"`: its read/delete) with an error (200) |
    /// | `DELETE /channels/behaviours/{channel_id}` | back to normal (204, 404 if unknown) |
    /// | `GET /certificates/behaviours` | `{"behaviours": [{uid, status, reason}, …]}` |
    /// | `POST /certificates/behaviours` `{"uid": "com.example.app", "status": 403, "reason": "BadCertificate"}` | answer every push over that client certificate's connections so (200) |
    /// | `DELETE /certificates/behaviours/{uid}` | back to normal (204, 404 if unknown) |
    /// | `POST /reset` | recorded pushes, behaviours and GOAWAY back to the start (204) |
    ///
    /// Errors answer `{"error": "…"}` with 400, 404 or 405.
    package func control(method: String, path: String, query: [String: String] = [:], body: [UInt8]) -> ControlResponse {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (method, segments) {
        case ("GET", ["pushes"]):
            var limit: Int?
            if let text = query["limit"] {
                guard let number = Int(text), number >= 0 else { return Self.error(400, "limit must be a number ≥ 0") }
                limit = number
            }
            let token = query["token"]?.lowercased()
            let channel = query["channel_id"]
            let pushes = accepted(limit: limit) { push in
                (token.map { push.deviceToken.lowercased() == $0 } ?? true) && (channel.map { push.channelID == $0 } ?? true)
            }
            return ControlResponse(status: 200, body: [
                "accepted_count": .int(Int64(acceptedCount)), "pushes": .array(pushes.map(\.json)),
            ])
        case ("DELETE", ["pushes"]):
            clearAccepted()
            return ControlResponse(status: 204)
        case ("GET", ["behaviours"]):
            let list = behaviours().sorted { $0.key < $1.key }.map { Self.json(prefix: $0.key, behaviour: $0.value) }
            return ControlResponse(status: 200, body: ["behaviours": .array(list)])
        case ("POST", ["behaviours"]):
            return setBehaviour(fromJSON: body)
        case ("DELETE", let parts) where parts.count == 2 && parts[0] == "behaviours":
            let prefix = parts[1].lowercased()
            guard behaviours()[prefix] != nil else { return Self.error(404, "no behaviour for prefix '\(prefix)'") }
            setBehaviour(nil, forTokenPrefix: prefix)
            return ControlResponse(status: 204)
        case ("POST", ["goaway"]):
            guard let object = (try? JSONValue.parse(body))?.objectValue, let value = object["after_streams"] else {
                return Self.error(400, #"expected {"after_streams": N} (N ≥ 1, or null to turn it off)"#)
            }
            if value.isNull {
                goAway(afterStreams: nil)
            } else if let streams = value.intValue, streams >= 1 {
                goAway(afterStreams: Int(streams))
            } else {
                return Self.error(400, "after_streams must be an integer ≥ 1 or null")
            }
            return ControlResponse(status: 200, body: ["after_streams": value])
        case (_, let parts) where parts.first == "certificates" && parts.dropFirst().first == "behaviours":
            return certificateControl(method: method, path: path, parts: Array(parts.dropFirst(2)), body: body)
        case (_, let parts) where parts.first == "channels":
            return channelControl(method: method, path: path, parts: Array(parts.dropFirst()), body: body)
        case ("POST", ["reset"]):
            reset()
            return ControlResponse(status: 204)
        case (_, ["pushes"]), (_, ["behaviours"]), (_, ["goaway"]), (_, ["reset"]):
            return Self.error(405, "method \(method) not allowed on \(path)")
        case (_, let parts) where parts.count == 2 && parts[0] == "behaviours":
            return Self.error(405, "method \(method) not allowed on \(path)")
        default:
            return Self.error(404, "no such control route: \(method) \(path)")
        }
    }

    private func certificateControl(method: String, path: String, parts: [String], body: [UInt8]) -> ControlResponse {
        switch (method, parts.count) {
        case ("GET", 0):
            let list = certificateBehaviours().sorted { $0.key < $1.key }.map { entry -> JSONValue in
                ["uid": .string(entry.key), "status": .int(Int64(entry.value.status)),
                 "reason": entry.value.reason.map(JSONValue.string) ?? .null]
            }
            return ControlResponse(status: 200, body: ["behaviours": .array(list)])
        case ("POST", 0):
            guard let object = (try? JSONValue.parse(body))?.objectValue,
                  let uid = object["uid"]?.stringValue, !uid.isEmpty,
                  let status = object["status"]?.intValue, (400...599).contains(status),
                  let reason = object["reason"]?.stringValue, !reason.isEmpty
            else {
                return Self.error(400, #"expected {"uid": "<the certificate's UID>", "status": 403, "reason": "BadCertificate"}"#)
            }
            setCertificateBehaviour(Behaviour(status: Int(status), reason: reason), forUID: uid)
            return ControlResponse(status: 200, body: ["uid": .string(uid), "status": .int(status), "reason": .string(reason)])
        case ("DELETE", 1):
            guard certificateBehaviours()[parts[0]] != nil else { return Self.error(404, "no behaviour for certificate '\(parts[0])'") }
            setCertificateBehaviour(nil, forUID: parts[0])
            return ControlResponse(status: 204)
        case (_, 0), (_, 1):
            return Self.error(405, "method \(method) not allowed on \(path)")
        default:
            return Self.error(404, "no such control route: \(method) \(path)")
        }
    }

    private func setBehaviour(fromJSON body: [UInt8]) -> ControlResponse {
        guard let object = (try? JSONValue.parse(body))?.objectValue else {
            return Self.error(400, "expected a JSON object")
        }
        guard let prefix = object["token_prefix"]?.stringValue, !prefix.isEmpty,
              prefix.allSatisfy(\.isHexDigit) else {
            return Self.error(400, "token_prefix must be a non-empty hex string")
        }
        guard let status = object["status"]?.intValue, (200...599).contains(status) else {
            return Self.error(400, "status must be an HTTP status from 200 to 599")
        }
        let reason = object["reason"]?.stringValue
        if status != 200, reason?.isEmpty ?? true {
            return Self.error(400, "a status other than 200 needs a reason, e.g. \"Unregistered\"")
        }
        let delay = object["delay_ms"]?.intValue ?? 0
        guard delay >= 0, delay <= 600_000 else { return Self.error(400, "delay_ms must be from 0 to 600000") }
        let behaviour = Behaviour(status: Int(status), reason: status == 200 ? nil : reason, delay: .milliseconds(delay))
        setBehaviour(behaviour, forTokenPrefix: prefix)
        return ControlResponse(status: 200, body: Self.json(prefix: prefix.lowercased(), behaviour: behaviour))
    }

    private static func json(prefix: String, behaviour: Behaviour) -> JSONValue {
        let delay = behaviour.delay.components
        return [
            "token_prefix": .string(prefix),
            "status": .int(Int64(behaviour.status)),
            "reason": behaviour.reason.map(JSONValue.string) ?? .null,
            "delay_ms": .int(delay.seconds * 1000 + delay.attoseconds / 1_000_000_000_000_000),
        ]
    }

    static func error(_ status: Int, _ message: String) -> ControlResponse {
        ControlResponse(status: status, body: ["error": .string(message)])
    }
}
