import OpenPushCore

extension FCMSimulator {
    /// The control API, independent of any HTTP server so tests can call it directly (the
    /// simulator also publishes it over HTTP/1.1 on `Configuration.controlPort`):
    ///
    /// | request | effect |
    /// |---|---|
    /// | `GET /messages` | `{"accepted_count": N, "messages": [{project_id, name, token, message, client_email, received_at}, …]}`, oldest first; `?token=` and `?project_id=` filter, `?limit=N` keeps the newest N |
    /// | `DELETE /messages` | forget accepted messages (204) |
    /// | `POST /tokens/{token}/unregister` | later sends to it answer `404 UNREGISTERED` (200) |
    /// | `POST /failures` `{"status": 429, "count": N, "retry_after": 30}` | the next N sends answer that status (400, 401, 429, 500 or 503; 200) |
    /// | `DELETE /failures` | drop pending failures (204) |
    /// | `POST /access_tokens/revoke` | every issued access token stops working (200 `{"revoked": N}`) |
    /// | `GET /counters` | `{"sends", "accepted", "token_requests", "access_tokens_issued"}` |
    /// | `POST /reset` | all of the above back to the start (204) |
    ///
    /// Errors answer `{"error": "…"}` with 400, 404 or 405.
    package func control(method: String, path: String, query: [String: String] = [:], body: [UInt8]) -> ControlResponse {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
            .map { Self.decodeFormComponent(ArraySlice($0.utf8), plusIsSpace: false) }
        switch (method, segments) {
        case ("GET", ["messages"]):
            var limit: Int?
            if let text = query["limit"] {
                guard let number = Int(text), number >= 0 else { return Self.error(400, "limit must be a number ≥ 0") }
                limit = number
            }
            let token = query["token"], project = query["project_id"]
            let messages = accepted(limit: limit) { message in
                (token.map { message.token == $0 } ?? true) && (project.map { message.projectID == $0 } ?? true)
            }
            return ControlResponse(status: 200, body: [
                "accepted_count": .int(Int64(counters.accepted)), "messages": .array(messages.map(\.json)),
            ])
        case ("DELETE", ["messages"]):
            clearAccepted()
            return ControlResponse(status: 204)
        case ("POST", let parts) where parts.count == 3 && parts[0] == "tokens" && parts[2] == "unregister":
            unregister(token: parts[1])
            return ControlResponse(status: 200, body: ["token": .string(parts[1]), "unregistered": true])
        case ("POST", ["failures"]):
            return injectFailure(fromJSON: body)
        case ("DELETE", ["failures"]):
            state.withLock { $0.failures.removeAll() }
            return ControlResponse(status: 204)
        case ("POST", ["access_tokens", "revoke"]):
            return ControlResponse(status: 200, body: ["revoked": .int(Int64(revokeAccessTokens()))])
        case ("GET", ["counters"]):
            return ControlResponse(status: 200, body: counters.json)
        case ("POST", ["reset"]):
            reset()
            return ControlResponse(status: 204)
        case (_, ["messages"]), (_, ["failures"]), (_, ["access_tokens", "revoke"]), (_, ["counters"]), (_, ["reset"]):
            return Self.error(405, "method \(method) not allowed on \(path)")
        case (_, let parts) where parts.count == 3 && parts[0] == "tokens" && parts[2] == "unregister":
            return Self.error(405, "method \(method) not allowed on \(path)")
        default:
            return Self.error(404, "no such control route: \(method) \(path)")
        }
    }

    private func injectFailure(fromJSON body: [UInt8]) -> ControlResponse {
        guard let object = (try? JSONValue.parse(body))?.objectValue else { return Self.error(400, "expected a JSON object") }
        let allowed = FailureStatus.allCases.map { String($0.rawValue) }.joined(separator: ", ")
        guard let code = object["status"]?.intValue, let status = FailureStatus(rawValue: Int(code)) else {
            return Self.error(400, "status must be one of \(allowed)")
        }
        guard let count = object["count"]?.intValue, (1...1_000_000).contains(count) else {
            return Self.error(400, "count must be an integer from 1 to 1000000")
        }
        var retryAfter: Int?
        if let value = object["retry_after"], !value.isNull {
            guard let seconds = value.intValue, (0...86_400).contains(seconds) else {
                return Self.error(400, "retry_after must be a number of seconds from 0 to 86400, or null")
            }
            retryAfter = Int(seconds)
        }
        injectFailure(status, count: Int(count), retryAfter: retryAfter)
        return ControlResponse(status: 200, body: [
            "status": .int(code), "count": .int(count), "retry_after": retryAfter.map { .int(Int64($0)) } ?? .null,
        ])
    }

    static func error(_ status: Int, _ message: String) -> ControlResponse {
        ControlResponse(status: status, body: ["error": .string(message)])
    }
}
