package import Crypto
package import Foundation
package import OpenPushCore

extension WebPushSimulator {
    /// A subscription the simulator can decrypt for: the browser's key pair and auth secret.
    package struct Subscription: Sendable {
        package var path: String
        package var keys: P256KeyPair
        package var authSecret: [UInt8]
        /// The application server key the browser subscribed with: pushes signed with another
        /// are refused `403`, as Chrome's service does. Nil: any.
        package var vapidPublicKey: String?

        /// `p256dh` as a browser hands it out (base64url of the uncompressed point).
        package var p256dh: String { Base64URL.encode(keys.publicKey) }
        package var auth: String { Base64URL.encode(authSecret) }
    }

    /// The statuses `POST /answers` can force.
    package enum ForcedStatus: Int, Sendable, CaseIterable {
        case badRequest = 400
        case unauthorized = 401
        case forbidden = 403
        case notFound = 404
        case gone = 410
        case payloadTooLarge = 413
        case tooManyRequests = 429
        case internalError = 500
        case unavailable = 503
    }

    /// The next `remaining` pushes to an endpoint (all of them when nil) answer `status`.
    struct ForcedAnswer {
        var status: ForcedStatus
        var remaining: Int?
        var retryAfter: Int?
    }

    /// One push as it arrived, its answer, and what it decrypted to.
    package struct ReceivedPush: Sendable {
        package var path: String
        package var status: Int
        /// Why it was refused, in the service's words; nil when accepted.
        package var problem: String?
        /// Every request header, names lower-cased.
        package var headers: [String: String]
        package var bodyLength: Int
        package var body: [UInt8]?
        /// The JWT's claims and `k=` when the `Authorization` header could be read.
        package var vapid: VAPIDClaims?
        /// The plaintext, for a subscription whose keys the simulator knows.
        package var plaintext: [UInt8]?
        package var decryptError: String?
        package var receivedAt: Date

        package var json: JSONValue {
            var object: JSONObject = [
                "path": .string(path), "status": .int(Int64(status)), "problem": problem.map(JSONValue.string) ?? .null,
                "headers": .object(JSONObject(headers.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })),
                "body_length": .int(Int64(bodyLength)), "received_at": .double(receivedAt.timeIntervalSince1970),
                "vapid": vapid?.json ?? .null, "decrypt_error": decryptError.map(JSONValue.string) ?? .null,
            ]
            object["body"] = body.map { JSONValue.string(Base64URL.encode($0)) } ?? .null
            if let plaintext {
                object["plaintext"] = String(validating: plaintext, as: UTF8.self).map(JSONValue.string) ?? .null
                object["plaintext_base64url"] = .string(Base64URL.encode(plaintext))
            } else {
                object["plaintext"] = .null
            }
            return .object(object)
        }
    }

    /// What a push's VAPID `Authorization` said.
    package struct VAPIDClaims: Sendable, Equatable {
        package var audience: String?
        package var expiresAt: Int?
        package var subject: String?
        /// `k=`: the application server's public key, base64url.
        package var publicKey: String

        package init(audience: String?, expiresAt: Int?, subject: String?, publicKey: String) {
            self.audience = audience
            self.expiresAt = expiresAt
            self.subject = subject
            self.publicKey = publicKey
        }

        var json: JSONValue {
            [
                "aud": audience.map(JSONValue.string) ?? .null, "exp": expiresAt.map { .int(Int64($0)) } ?? .null,
                "sub": subject.map(JSONValue.string) ?? .null, "k": .string(publicKey),
            ]
        }
    }

    package struct Counters: Sendable, Equatable {
        /// Requests to an endpoint, whatever their answer.
        package var requests = 0
        package var accepted = 0
        package var refused = 0
        package var decrypted = 0
        package var decryptFailures = 0

        package var json: JSONValue {
            [
                "requests": .int(Int64(requests)), "accepted": .int(Int64(accepted)), "refused": .int(Int64(refused)),
                "decrypted": .int(Int64(decrypted)), "decrypt_failures": .int(Int64(decryptFailures)),
            ]
        }
    }

    /// An answer of the control API: status and JSON body (`nil` = none).
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

    /// Registers `path` as a subscription: with the browser's private key and auth secret, or
    /// with a key pair and secret made here (returned, to register with the application).
    @discardableResult
    package func subscribe(path: String, keys: P256KeyPair? = nil, authSecret: [UInt8]? = nil,
                           vapidPublicKey: String? = nil) throws -> Subscription {
        let subscription = Subscription(path: Self.normalised(path), keys: try keys ?? P256KeyPair.generate(),
                                        authSecret: authSecret ?? SecureRandom.bytes(16), vapidPublicKey: vapidPublicKey)
        state.withLock { $0.subscriptions[subscription.path] = subscription }
        return subscription
    }

    package func subscriptions() -> [Subscription] {
        state.withLock { Array($0.subscriptions.values) }.sorted { $0.path < $1.path }
    }

    /// Received pushes, oldest first, that `matching` keeps (the newest `limit`, all when nil).
    package func received(limit: Int? = nil, matching: (ReceivedPush) -> Bool = { _ in true }) -> [ReceivedPush] {
        state.withLock { state in
            var newest: [ReceivedPush] = []
            for push in state.received.reversed() where matching(push) {
                if let limit, newest.count >= limit { break }
                newest.append(push)
            }
            return newest.reversed()
        }
    }

    package func clearReceived() {
        state.withLock { $0.received.removeAll() }
    }

    /// The next `count` pushes to `path` (every one when nil) answer `status`, with a
    /// `Retry-After` when given.
    package func force(_ status: ForcedStatus, path: String, count: Int? = nil, retryAfter: Int? = nil) {
        state.withLock { $0.forced[Self.normalised(path)] = ForcedAnswer(status: status, remaining: count, retryAfter: retryAfter) }
    }

    package func clearForced() {
        state.withLock { $0.forced.removeAll() }
    }

    /// Requests to `path` wait (unanswered) until `release(path:)`: a push service that hangs.
    package func hold(path: String) {
        _ = state.withLock { $0.holding.insert(Self.normalised(path)) }
    }

    /// Requests waiting at a held `path` now (tests).
    package func waiting(path: String) -> Int {
        state.withLock { $0.held[Self.normalised(path)]?.count ?? 0 }
    }

    package func release(path: String) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let path = Self.normalised(path)
            state.holding.remove(path)
            return state.held.removeValue(forKey: path) ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    func releaseAll() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holding.removeAll()
            defer { state.held.removeAll() }
            return state.held.values.flatMap { $0 }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Back to the start: no pushes, forced answers, holds or counts (subscriptions stay).
    package func reset() {
        releaseAll()
        state.withLock { state in
            state.received.removeAll()
            state.forced.removeAll()
            state.counters = Counters()
        }
    }

    func record(_ push: ReceivedPush) {
        let limit = max(1, configuration.recordLimit)
        state.withLock { state in
            state.counters.requests += 1
            if (200..<300).contains(push.status) { state.counters.accepted += 1 } else { state.counters.refused += 1 }
            if push.plaintext != nil { state.counters.decrypted += 1 }
            if push.decryptError != nil { state.counters.decryptFailures += 1 }
            state.received.append(push)
            // Trim in batches so recording stays O(1) amortised.
            if state.received.count > limit + limit / 8 {
                state.received.removeFirst(state.received.count - limit)
            }
        }
    }

    /// A path with one leading slash.
    static func normalised(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }
}
