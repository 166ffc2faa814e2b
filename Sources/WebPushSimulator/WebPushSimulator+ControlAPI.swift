import Crypto
import OpenPushCore

extension WebPushSimulator {
    /// The control API, independent of any HTTP server so tests can call it directly (the
    /// simulator also publishes it over HTTP/1.1 on `Configuration.controlPort`):
    ///
    /// | request | effect |
    /// |---|---|
    /// | `POST /subscriptions` `{"path"?, "private_key"?, "auth"?, "vapid_public_key"?}` | a subscription at `path` (default `/push/<random>`): with the browser's private key (base64url of the 32-byte scalar) and auth secret, or a key pair and secret made here; answers 201 `{"endpoint", "path", "p256dh", "auth"}` to register with OpenPush |
    /// | `GET /subscriptions` | `{"subscriptions": [{"endpoint", "path", "p256dh", "auth"}, …]}` |
    /// | `GET /pushes` | `{"received_count": N, "pushes": [{path, status, problem, headers, body_length, body, vapid, plaintext, decrypt_error, received_at}, …]}`, oldest first; `?path=` filters, `?limit=N` keeps the newest N |
    /// | `DELETE /pushes` | forget received pushes (204) |
    /// | `POST /answers` `{"path", "status", "count"?, "retry_after"?}` | the next `count` pushes to `path` (all when absent) answer `status` (400, 401, 403, 404, 410, 413, 429, 500 or 503) |
    /// | `DELETE /answers` | drop forced answers (204) |
    /// | `POST /holds` `{"path"}` / `DELETE /holds` `{"path"}` | pushes to `path` wait unanswered / are answered (a hung service) |
    /// | `GET /counters` | `{"requests", "accepted", "refused", "decrypted", "decrypt_failures"}` |
    /// | `POST /reset` | no pushes, forced answers, holds or counts (subscriptions stay; 204) |
    ///
    /// Errors answer `{"error": "…"}` with 400, 404 or 405.
    package func control(method: String, path: String, query: [String: String] = [:], body: [UInt8]) -> ControlResponse {
        switch (method, path) {
        case ("POST", "/subscriptions"):
            return subscription(fromJSON: body)
        case ("GET", "/subscriptions"):
            return ControlResponse(status: 200, body: ["subscriptions": .array(subscriptions().map(json))])
        case ("GET", "/pushes"):
            var limit: Int?
            if let text = query["limit"] {
                guard let number = Int(text), number >= 0 else { return Self.error(400, "limit must be a number ≥ 0") }
                limit = number
            }
            let wanted = query["path"].map(Self.normalised)
            let pushes = received(limit: limit) { push in wanted.map { push.path == $0 } ?? true }
            return ControlResponse(status: 200, body: [
                "received_count": .int(Int64(counters.requests)), "pushes": .array(pushes.map(\.json)),
            ])
        case ("DELETE", "/pushes"):
            clearReceived()
            return ControlResponse(status: 204)
        case ("POST", "/answers"):
            return forcedAnswer(fromJSON: body)
        case ("DELETE", "/answers"):
            clearForced()
            return ControlResponse(status: 204)
        case ("POST", "/holds"), ("DELETE", "/holds"):
            guard let object = (try? JSONValue.parse(body))?.objectValue, let held = object["path"]?.stringValue else {
                return Self.error(400, "expected {\"path\": \"/push/…\"}")
            }
            if method == "POST" { hold(path: held) } else { release(path: held) }
            return ControlResponse(status: 204)
        case ("GET", "/counters"):
            return ControlResponse(status: 200, body: counters.json)
        case ("POST", "/reset"):
            reset()
            return ControlResponse(status: 204)
        case (_, "/subscriptions"), (_, "/pushes"), (_, "/answers"), (_, "/holds"), (_, "/counters"), (_, "/reset"):
            return Self.error(405, "method \(method) not allowed on \(path)")
        default:
            return Self.error(404, "no such control route: \(method) \(path)")
        }
    }

    private func json(_ subscription: Subscription) -> JSONValue {
        [
            "endpoint": .string(endpoint(path: subscription.path)), "path": .string(subscription.path),
            "p256dh": .string(subscription.p256dh), "auth": .string(subscription.auth),
            "vapid_public_key": subscription.vapidPublicKey.map(JSONValue.string) ?? .null,
        ]
    }

    private func subscription(fromJSON body: [UInt8]) -> ControlResponse {
        let object = body.isEmpty ? JSONObject() : (try? JSONValue.parse(body))?.objectValue
        guard let object else { return Self.error(400, "expected a JSON object") }
        let path = object["path"]?.stringValue ?? "/push/" + Base64URL.encode(SecureRandom.bytes(12))
        guard path.count <= 1024, !path.contains("?"), !path.contains(" ") else {
            return Self.error(400, "path must be a URL path without a query")
        }
        var keys: P256KeyPair?
        if let text = object["private_key"]?.stringValue {
            guard let scalar = Base64URL.decode(text), scalar.count == 32, let pair = try? P256KeyPair(scalar: scalar) else {
                return Self.error(400, "private_key must be base64url of a 32-byte P-256 private key")
            }
            keys = pair
        }
        var secret: [UInt8]?
        if let text = object["auth"]?.stringValue {
            guard let bytes = Base64URL.decode(text), bytes.count == 16 else { return Self.error(400, "auth must be base64url of 16 bytes") }
            secret = bytes
        }
        do {
            let subscription = try subscribe(path: path, keys: keys, authSecret: secret,
                                             vapidPublicKey: object["vapid_public_key"]?.stringValue)
            return ControlResponse(status: 201, body: json(subscription))
        } catch {
            return Self.error(400, "could not make a key pair: \(error)")
        }
    }

    private func forcedAnswer(fromJSON body: [UInt8]) -> ControlResponse {
        guard let object = (try? JSONValue.parse(body))?.objectValue else { return Self.error(400, "expected a JSON object") }
        guard let path = object["path"]?.stringValue else { return Self.error(400, "path is required") }
        let allowed = ForcedStatus.allCases.map { String($0.rawValue) }.joined(separator: ", ")
        guard let code = object["status"]?.intValue, let status = ForcedStatus(rawValue: Int(code)) else {
            return Self.error(400, "status must be one of \(allowed)")
        }
        var count: Int?
        if let value = object["count"], !value.isNull {
            guard let number = value.intValue, (1...1_000_000).contains(number) else {
                return Self.error(400, "count must be an integer from 1 to 1000000, or null (every push)")
            }
            count = Int(number)
        }
        var retryAfter: Int?
        if let value = object["retry_after"], !value.isNull {
            guard let seconds = value.intValue, (0...86_400).contains(seconds) else {
                return Self.error(400, "retry_after must be a number of seconds from 0 to 86400, or null")
            }
            retryAfter = Int(seconds)
        }
        force(status, path: path, count: count, retryAfter: retryAfter)
        return ControlResponse(status: 200, body: [
            "path": .string(Self.normalised(path)), "status": .int(code), "count": count.map { .int(Int64($0)) } ?? .null,
            "retry_after": retryAfter.map { .int(Int64($0)) } ?? .null,
        ])
    }

    static func error(_ status: Int, _ message: String) -> ControlResponse {
        ControlResponse(status: status, body: ["error": .string(message)])
    }
}
