package import Foundation
package import OpenPushCore

extension FCMSimulator {
    /// The statuses `POST /failures` can make the next sends answer.
    package enum FailureStatus: Int, Sendable, CaseIterable {
        /// `INVALID_ARGUMENT` about a field of the message other than the token.
        case invalidArgument = 400
        case unauthenticated = 401
        case quotaExceeded = 429
        case `internal` = 500
        case unavailable = 503
    }

    /// A message FCM accepted (answered 200).
    package struct SentMessage: Sendable, Equatable {
        package var projectID: String
        /// `projects/{project_id}/messages/{id}`, as answered.
        package var name: String
        package var token: String
        /// The `message` object as sent.
        package var message: JSONObject
        /// The service account whose access token authorised it.
        package var clientEmail: String
        package var receivedAt: Date

        package var json: JSONValue {
            [
                "project_id": .string(projectID), "name": .string(name), "token": .string(token),
                "message": .object(message), "client_email": .string(clientEmail),
                "received_at": .double(receivedAt.timeIntervalSince1970),
            ]
        }
    }

    package struct Counters: Sendable, Equatable {
        /// Requests to the send route, whatever their answer.
        package var sends = 0
        package var accepted = 0
        /// Requests to `POST /token`, whatever their answer.
        package var tokenRequests = 0
        package var accessTokensIssued = 0

        package var json: JSONValue {
            [
                "sends": .int(Int64(sends)), "accepted": .int(Int64(accepted)),
                "token_requests": .int(Int64(tokenRequests)), "access_tokens_issued": .int(Int64(accessTokensIssued)),
            ]
        }
    }

    /// An answer of the token endpoint or the control API: status and JSON body (`nil` = none).
    package struct ControlResponse: Sendable, Equatable {
        package var status: Int
        package var body: JSONValue?

        package init(status: Int, body: JSONValue? = nil) {
            self.status = status
            self.body = body
        }
    }

    // MARK: Control

    package var counters: Counters { state.withLock { $0.counters } }

    /// The accepted messages, oldest first, that `matching` keeps (the newest `limit`, all when nil).
    package func accepted(limit: Int? = nil, matching: (SentMessage) -> Bool = { _ in true }) -> [SentMessage] {
        state.withLock { state in
            var newest: [SentMessage] = []
            for message in state.recorded.reversed() where matching(message) {
                if let limit, newest.count >= limit { break }
                newest.append(message)
            }
            return newest.reversed()
        }
    }

    package func clearAccepted() {
        state.withLock { $0.recorded.removeAll() }
    }

    /// Later sends to `token` answer `404 UNREGISTERED`, as after an app was uninstalled.
    package func unregister(token: String) {
        state.withLock { _ = $0.unregistered.insert(token) }
    }

    /// The next `count` sends (after the access token check) answer `status`, with a
    /// `Retry-After` header when `retryAfter` is given. Queued after failures already pending.
    package func injectFailure(_ status: FailureStatus, count: Int, retryAfter: Int? = nil) {
        guard count > 0 else { return }
        state.withLock { $0.failures.append(InjectedFailure(status: status, remaining: count, retryAfter: retryAfter)) }
    }

    /// Every access token issued so far stops working (sends with one answer 401); returns how many.
    @discardableResult
    package func revokeAccessTokens() -> Int {
        state.withLock { state in
            defer { state.accessTokens.removeAll() }
            return state.accessTokens.count
        }
    }

    /// Back to the start: no messages, unregistered tokens, failures, access tokens or counts.
    package func reset() {
        state.withLock { state in
            state.recorded.removeAll()
            state.unregistered.removeAll()
            state.failures.removeAll()
            state.accessTokens.removeAll()
            state.counters = Counters()
        }
    }

    func record(_ message: SentMessage) {
        let limit = max(1, configuration.recordLimit)
        state.withLock { state in
            state.counters.accepted += 1
            state.recorded.append(message)
            // Trim in batches so recording stays O(1) amortised.
            if state.recorded.count > limit + limit / 8 {
                state.recorded.removeFirst(state.recorded.count - limit)
            }
        }
    }
}
