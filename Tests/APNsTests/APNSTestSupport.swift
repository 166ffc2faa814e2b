import Foundation
import Synchronization
import APNs
import Crypto
import OpenPushCore

/// Requests, credentials and the APNs-like replies the end-to-end tests share.
enum APNSTestSupport {
    /// One push sent to a server that never answers, returned once the server holds it: a push
    /// in flight, for tests of what shutdown or retirement does to it.
    static func pushInFlight(_ client: APNSClient, server: H2TestServer, credential: APNSCredential) async throws
        -> Task<[Result<APNSResponse, APNSTransportError>], Never>
    {
        let pending = Task {
            await client.send([push(token: token("a"))], credential: credential, environment: .sandbox)
        }
        while server.snapshot().requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        return pending
    }

    static func credential() throws -> APNSCredential {
        APNSCredential(
            keyID: "KEY1234567", teamID: "TEAM123456",
            signingKey: try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256")))
    }

    static func client(
        _ url: String, connections: Int = 1, requestTimeout: Double = 20, caFile: String? = nil,
        idleTimeout: Double = 300, clock: (@Sendable () -> Double)? = nil
    ) throws -> APNSClient {
        try APNSClient(configuration: APNSClientConfiguration(
            productionURL: url, sandboxURL: url, connectionsPerKey: connections, caFile: caFile,
            connectTimeout: 5, requestTimeout: requestTimeout, reconnectBackoffBase: 0.01, reconnectBackoffCap: 0.2,
            idleTimeout: idleTimeout, clock: clock))
    }

    /// A Live Activity update of about 290 bytes, the size the benchmark uses.
    static func push(token: String, apnsID: String = UUID().uuidString.lowercased()) -> APNSPush {
        let payload: JSONValue = [
            "aps": [
                "timestamp": 1_764_488_400,
                "event": "update",
                "content-state": [
                    "status": "out_for_delivery", "eta_minutes": 12, "driver": "Sam",
                    "openpush": ["notification_id": "msg_01jb2m9x4e7q0000000000", "activity_id": "order-58213"],
                ],
                "alert": ["title": "Your order is on its way", "body": "Sam is 12 minutes away"],
            ],
        ]
        let headers = APNSHeaders(
            pushType: .liveActivity, topic: "com.example.app.push-type.liveactivity", priority: 5,
            expiration: 1_764_574_800, apnsID: apnsID)
        return APNSPush(deviceToken: token, request: APNSRequest(headers: headers, payload: payload))
    }

    static func token(_ prefix: String = "", _ index: Int = 0) -> String {
        let hex = String(index, radix: 16)
        let body = prefix + String(repeating: "0", count: max(0, 64 - prefix.count - hex.count)) + hex
        return body
    }

    /// What APNs would answer, by token prefix: `bad…` 400 BadDeviceToken, `dead…` 410
    /// Unregistered with a timestamp, anything else 200; `apns-id` echoed.
    static func reply(to request: H2Request) -> H2Reply {
        let apnsID = request.value("apns-id") ?? UUID().uuidString.lowercased()
        let token = request.deviceToken
        if token.hasPrefix("bad") {
            return .respond(status: 400, headers: [("apns-id", apnsID)], body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        }
        if token.hasPrefix("dead") {
            return .respond(
                status: 410, headers: [("apns-id", apnsID)],
                body: Array(#"{"reason":"Unregistered","timestamp":1764488400000}"#.utf8))
        }
        return .respond(status: 200, headers: [("apns-id", apnsID)])
    }

    /// The `iat` of the JWT in a request's `authorization` header.
    static func issuedAt(_ request: H2Request) -> Int64? {
        guard let authorization = request.value("authorization"), authorization.hasPrefix("bearer ") else { return nil }
        let parts = authorization.dropFirst("bearer ".count).split(separator: ".")
        guard parts.count == 3, let claims = TestBase64URL.decode(String(parts[1])) else { return nil }
        return (try? JSONValue.parse(claims))?.objectValue?["iat"]?.intValue
    }
}

/// A wall clock the test moves by hand.
final class ManualClock: Sendable {
    private let current: Mutex<Double>
    init(_ start: Double) { current = Mutex(start) }
    func now() -> Double { current.withLock { $0 } }
    func advance(_ seconds: Double) { current.withLock { $0 += seconds } }
}

/// A thread-safe tally for server handlers.
final class Tally<Key: Hashable & Sendable>: Sendable {
    private let counts = Mutex<[Key: Int]>([:])
    @discardableResult
    func add(_ key: Key) -> Int { counts.withLock { $0[key, default: 0] += 1; return $0[key]! } }
    var snapshot: [Key: Int] { counts.withLock { $0 } }
}

extension APNSClient {
    /// Waits (up to `timeout` seconds) until the metrics satisfy `condition`; false if they never did.
    func waitForMetrics(timeout: Double = 10, _ condition: (APNSClientMetrics) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(metrics) {
            guard Date() < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
