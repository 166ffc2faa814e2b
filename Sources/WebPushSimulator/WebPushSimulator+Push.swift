import Crypto
import Foundation
import HTTPServer
import OpenPushCore

extension WebPushSimulator {
    /// The most a push body may be (RFC 8291 §4: one 4,096-byte record).
    static let maxBodyBytes = 4096
    /// How far ahead a JWT's `exp` may be (RFC 8292 §2).
    static let maxExpirySeconds = 86_400

    /// One request to an endpoint: checked, answered, recorded.
    func receive(_ request: HTTPRequest) async -> HTTPResponse {
        let path = request.path
        if state.withLock({ $0.holding.contains(path) }) {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.holding.contains(path) else { return true }
                    state.held[path, default: []].append(waiter)
                    return false
                }
                if resumeNow { waiter.resume() }
            }
        }
        let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        var push = ReceivedPush(path: path, status: 201, headers: headers, bodyLength: request.body.count,
                                body: configuration.recordBodies ? request.body : nil, receivedAt: configuration.now())
        var responseHeaders: HTTPHeaders = [:]
        let vapid = readVAPIDOnce(headers["authorization"])
        if case .success(let claims) = vapid { push.vapid = claims }
        if let refusal = check(request, headers: headers, vapid: vapid) {
            push.status = refusal.status
            push.problem = refusal.problem
        } else if let forced = takeForcedAnswer(path) {
            push.status = forced.status.rawValue
            push.problem = "forced by the control API"
            if let retryAfter = forced.retryAfter { responseHeaders.add(name: "Retry-After", value: String(retryAfter)) }
        }
        if push.status == 201 {
            decrypt(&push, body: request.body)
            let id = state.withLock { state -> Int in
                state.nextMessage += 1
                return state.nextMessage
            }
            responseHeaders.add(name: "Location", value: "\(origin(of: request))/message/\(id)")
            if let ttl = headers["ttl"] { responseHeaders.add(name: "TTL", value: ttl) }
        }
        record(push)
        let body = push.problem.map { JSONValue.object(["error": .string($0)]).serializedBytes } ?? []
        if !body.isEmpty { responseHeaders.add(name: "Content-Type", value: "application/json") }
        return HTTPResponse(status: push.status, headers: responseHeaders, body: body)
    }

    /// The status and reason a push service refuses `request` with, or nil when it takes it.
    private func check(_ request: HTTPRequest, headers: [String: String],
                       vapid: Result<VAPIDClaims, VAPIDProblem>) -> (status: Int, problem: String)? {
        guard request.method == .post else { return (405, "pushes are POSTed") }
        let claims: VAPIDClaims
        switch vapid {
        case .success(let read): claims = read
        case .failure(let problem): return (problem.status, problem.message)
        }
        let origin = origin(of: request)
        guard claims.audience == origin else {
            return (403, "the JWT's aud is \(claims.audience ?? "missing"), not this push service's origin \(origin)")
        }
        let now = Int(configuration.now().timeIntervalSince1970)
        guard let expiry = claims.expiresAt, expiry > now else { return (403, "the JWT's exp is missing or past") }
        guard expiry <= now + Self.maxExpirySeconds else { return (403, "the JWT's exp is more than 24 hours ahead") }
        guard let subject = claims.subject, !subject.isEmpty else { return (403, "the JWT has no sub") }
        if let bound = state.withLock({ $0.subscriptions[request.path]?.vapidPublicKey }), bound != claims.publicKey {
            return (403, "the VAPID key is not the one this subscription was made with")
        }
        guard headers["content-encoding"]?.lowercased() == "aes128gcm" else {
            return (400, "Content-Encoding must be aes128gcm")
        }
        guard let ttl = headers["ttl"], let seconds = Int(ttl), seconds >= 0 else { return (400, "TTL is missing or not a number") }
        if let urgency = headers["urgency"], !["very-low", "low", "normal", "high"].contains(urgency) {
            return (400, "Urgency must be very-low, low, normal or high")
        }
        if let topic = headers["topic"], topic.isEmpty || topic.utf8.count > 32 || Base64URL.decode(topic) == nil {
            return (400, "Topic must be at most 32 base64url characters")
        }
        guard request.body.count <= Self.maxBodyBytes else {
            return (413, "the body is \(request.body.count) bytes, over \(Self.maxBodyBytes)")
        }
        return nil
    }

    /// This service's origin as the client reached it (its `Host`).
    private func origin(of request: HTTPRequest) -> String {
        "http://" + (request.headers["Host"] ?? "\(configuration.host):\(port)")
    }

    private func takeForcedAnswer(_ path: String) -> ForcedAnswer? {
        state.withLock { state in
            guard var forced = state.forced[path] else { return nil }
            if let remaining = forced.remaining {
                forced.remaining = remaining - 1
                state.forced[path] = remaining > 1 ? forced : nil
            }
            return forced
        }
    }

    /// The plaintext, as the subscribed browser would read it.
    private func decrypt(_ push: inout ReceivedPush, body: [UInt8]) {
        guard let subscription = state.withLock({ $0.subscriptions[push.path] }), !body.isEmpty else { return }
        do {
            push.plaintext = try WebPushEncryption.decrypt(body, receiver: subscription.keys, authSecret: subscription.authSecret)
        } catch {
            push.decryptError = "\(error)"
        }
    }
}
