import Crypto
import Foundation
import HTTPClient
import OpenPushCore
import Testing
import WebPushSimulator

/// The simulator answers pushes as a push service does: a VAPID JWT verified against `k=` with
/// its own origin as `aud`, `exp` within 24 h and a `sub`; `aes128gcm`, a `TTL` and at most
/// 4,096 bytes; `201` with a `Location` — and, like a browser, decrypts what it took.
@Suite struct WebPushSimulatorTests {
    /// A started simulator and a client, both stopped afterwards.
    static func withSimulator(_ body: (WebPushSimulator, HTTPClient) async throws -> Void) async throws {
        let simulator = WebPushSimulator(.init(controlPort: 0))
        try simulator.start()
        let client = try HTTPClient()
        do {
            try await body(simulator, client)
        } catch {
            await client.shutdown()
            await simulator.stop()
            throw error
        }
        await client.shutdown()
        await simulator.stop()
    }

    /// An ES256 JWT over `claims`, signed by `key`, as a `vapid` Authorization with `k=` `publicKey`.
    static func authorization(_ claims: JSONValue, key: P256KeyPair, publicKey: [UInt8]? = nil) throws -> String {
        let header = Base64URL.encode(JSONValue.object(["typ": "JWT", "alg": "ES256"]).serializedBytes)
        let payload = Base64URL.encode(claims.serializedBytes)
        let signature = try key.signES256(Array("\(header).\(payload)".utf8))
        return "vapid t=\(header).\(payload).\(Base64URL.encode(signature)), k=\(Base64URL.encode(publicKey ?? key.publicKey))"
    }

    static func post(_ url: String, body: [UInt8], headers: [(name: String, value: String)],
                     client: HTTPClient) async throws -> HTTPClientResponse {
        try await client.send(HTTPClientRequest(url: url, method: "POST", headers: headers, body: body, timeout: .seconds(60),
                                                responseHeaders: ["Location", "Retry-After"]))
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    @Test func theRFC8291VectorDecrypts() throws {
        try WebPushSimulator.selfCheck()
    }

    @Test func aSignedEncryptedPushIsTakenAndDecryptedForItsSubscription() async throws {
        try await Self.withSimulator { simulator, client in
            let subscription = try simulator.subscribe(path: "/push/one")
            let vapid = try P256KeyPair.generate()
            let plaintext = Array(#"{"title": "Hello", "body": "from the test"}"#.utf8)
            let body = try WebPushEncryption.encrypt(plaintext, receiverPublicKey: subscription.keys.publicKey,
                                                     authSecret: subscription.authSecret)
            let expiry = Self.now + 3600
            let authorization = try VAPID.authorization(key: vapid, audience: simulator.origin, subject: "mailto:ops@example.com",
                                                        expiresAt: expiry)
            let response = try await Self.post(simulator.endpoint(path: "/push/one"), body: body, headers: [
                ("Content-Encoding", "aes128gcm"), ("TTL", "60"), ("Urgency", "high"), ("Topic", "news"), ("Authorization", authorization),
            ], client: client)
            #expect(response.status == 201)
            #expect(response.header("Location")?.hasPrefix(simulator.origin + "/message/") == true)
            let push = try #require(simulator.received().last)
            #expect(push.path == "/push/one" && push.status == 201 && push.problem == nil)
            #expect(push.plaintext == plaintext)
            #expect(push.headers["ttl"] == "60" && push.headers["urgency"] == "high" && push.headers["topic"] == "news")
            #expect(push.vapid == .init(audience: simulator.origin, expiresAt: expiry, subject: "mailto:ops@example.com",
                                        publicKey: Base64URL.encode(vapid.publicKey)))
            #expect(simulator.counters.decrypted == 1 && simulator.counters.accepted == 1)

            // The control API lists it with the plaintext as text.
            let listed = simulator.control(method: "GET", path: "/pushes", query: ["path": "/push/one"], body: [])
            let first = listed.body?.objectValue?["pushes"]?.arrayValue?.first?.objectValue
            #expect(first?["plaintext"]?.stringValue == String(decoding: plaintext, as: UTF8.self))
        }
    }

    @Test func refusalsAnswerAsAPushServiceDoes() async throws {
        try await Self.withSimulator { simulator, client in
            let subscription = try simulator.subscribe(path: "/push/two")
            let vapid = try P256KeyPair.generate(), other = try P256KeyPair.generate()
            let body = try WebPushEncryption.encrypt(Array("hi".utf8), receiverPublicKey: subscription.keys.publicKey,
                                                     authSecret: subscription.authSecret)
            let url = simulator.endpoint(path: "/push/two")
            let good: JSONValue = ["aud": .string(simulator.origin), "exp": .int(Int64(Self.now + 3600)), "sub": "mailto:ops@example.com"]
            func status(_ authorization: String?, encoding: String? = "aes128gcm", ttl: String? = "60",
                        body: [UInt8] = body) async throws -> Int {
                var headers: [(name: String, value: String)] = []
                if let authorization { headers.append(("Authorization", authorization)) }
                if let encoding { headers.append(("Content-Encoding", encoding)) }
                if let ttl { headers.append(("TTL", ttl)) }
                return try await Self.post(url, body: body, headers: headers, client: client).status
            }
            #expect(try await status(try Self.authorization(good, key: vapid)) == 201)
            #expect(try await status(nil) == 401)
            // Signed by another key than k= names.
            #expect(try await status(try Self.authorization(good, key: other, publicKey: vapid.publicKey)) == 401)
            #expect(try await status("Bearer abc") == 401)
            var claims = good.objectValue!
            claims["aud"] = "https://fcm.googleapis.com"
            #expect(try await status(try Self.authorization(.object(claims), key: vapid)) == 403)
            claims = good.objectValue!
            claims["exp"] = .int(Int64(Self.now + 25 * 3600))
            #expect(try await status(try Self.authorization(.object(claims), key: vapid)) == 403)
            claims["exp"] = .int(Int64(Self.now - 60))
            #expect(try await status(try Self.authorization(.object(claims), key: vapid)) == 403)
            claims = good.objectValue!
            claims["sub"] = nil
            #expect(try await status(try Self.authorization(.object(claims), key: vapid)) == 403)
            let signed = try Self.authorization(good, key: vapid)
            #expect(try await status(signed, encoding: "aesgcm") == 400)
            #expect(try await status(signed, ttl: nil) == 400)
            #expect(try await status(signed, body: [UInt8](repeating: 7, count: 4097)) == 413)
            let counters = simulator.counters
            #expect(counters.accepted == 1 && counters.refused == 10 && counters.decrypted == 1)
        }
    }

    @Test func forcedAnswersAndAHeldEndpoint() async throws {
        try await Self.withSimulator { simulator, client in
            let vapid = try P256KeyPair.generate()
            let authorization = try VAPID.authorization(key: vapid, audience: simulator.origin, subject: "https://example.com/contact",
                                                        expiresAt: Self.now + 3600)
            let headers: [(name: String, value: String)] = [("Content-Encoding", "aes128gcm"), ("TTL", "0"), ("Authorization", authorization)]
            let forced = simulator.control(method: "POST", path: "/answers",
                                           body: Array(#"{"path": "/push/busy", "status": 429, "count": 1, "retry_after": 30}"#.utf8))
            #expect(forced.status == 200)
            simulator.force(.gone, path: "/push/gone")
            let busy = try await Self.post(simulator.endpoint(path: "/push/busy"), body: [1, 2, 3], headers: headers, client: client)
            #expect(busy.status == 429 && busy.header("Retry-After") == "30")
            // Count 1: the next one is taken (an unknown subscription: nothing to decrypt with).
            #expect(try await Self.post(simulator.endpoint(path: "/push/busy"), body: [1, 2, 3], headers: headers, client: client).status == 201)
            for _ in 0..<2 {
                #expect(try await Self.post(simulator.endpoint(path: "/push/gone"), body: [1], headers: headers, client: client).status == 410)
            }
            simulator.hold(path: "/push/slow")
            let held = Task { try await Self.post(simulator.endpoint(path: "/push/slow"), body: [1], headers: headers, client: client).status }
            while simulator.waiting(path: "/push/slow") < 1 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(simulator.counters.requests == 4)
            simulator.release(path: "/push/slow")
            #expect(try await held.value == 201)
        }
    }

    @Test func theControlAPIMakesABrowserSubscription() async throws {
        try await Self.withSimulator { simulator, client in
            let controlURL = try #require(simulator.controlURL)
            let made = try await client.send(HTTPClientRequest(url: controlURL + "/subscriptions", method: "POST",
                                                               body: Array(#"{"path": "/push/made"}"#.utf8), timeout: .seconds(60)))
            #expect(made.status == 201)
            let object = try #require(try JSONValue.parse(made.body).objectValue)
            #expect(object["endpoint"]?.stringValue == simulator.origin + "/push/made")
            let p256dh = try #require(object["p256dh"]?.stringValue.flatMap(Base64URL.decode))
            let auth = try #require(object["auth"]?.stringValue.flatMap(Base64URL.decode))
            #expect(P256KeyPair.isValidPublicKey(p256dh) && auth.count == 16)
            // A push encrypted to what it handed out decrypts.
            let body = try WebPushEncryption.encrypt(Array("made".utf8), receiverPublicKey: p256dh, authSecret: auth)
            let authorization = try VAPID.authorization(key: try P256KeyPair.generate(), audience: simulator.origin,
                                                        subject: "mailto:a@example.com", expiresAt: Self.now + 60)
            _ = try await Self.post(simulator.endpoint(path: "/push/made"), body: body,
                                    headers: [("Content-Encoding", "aes128gcm"), ("TTL", "5"), ("Authorization", authorization)],
                                    client: client)
            #expect(simulator.received().last?.plaintext == Array("made".utf8))
            let bad = simulator.control(method: "POST", path: "/answers", body: Array(#"{"path": "/x", "status": 302}"#.utf8))
            #expect(bad.status == 400)
        }
    }
}
