import Crypto
import FCMSimulator
import Foundation
import HTTPClient
import OpenPushCore
import Synchronization

/// A Google service account made for the test, and JWT assertions signed with its key the
/// way a client signs them (RS256, straight through libcrypto).
struct TestServiceAccount: Sendable {
    let key: FCMTestRSAKey
    let clientEmail: String
    let privateKeyID: String
    let projectID: String

    init(project: String, key: FCMTestRSAKey = FCMTestRSAKey()) {
        self.key = key
        projectID = project
        clientEmail = "firebase-adminsdk@\(project).iam.gserviceaccount.com"
        privateKeyID = "kid-\(project)"
    }

    var serviceAccount: FCMSimulator.ServiceAccount {
        .init(clientEmail: clientEmail, privateKeyID: privateKeyID, projectID: projectID, privateKeyPEM: key.privateKeyPEM)
    }

    /// The key file's JSON text, as Google hands it out (less fields the simulator ignores).
    var keyFileJSON: [UInt8] {
        JSONValue.object([
            "type": "service_account", "project_id": .string(projectID), "private_key_id": .string(privateKeyID),
            "private_key": .string(key.privateKeyPEM), "client_email": .string(clientEmail),
            "token_uri": "https://oauth2.googleapis.com/token",
        ]).serializedBytes
    }

    /// An assertion for `audience`; every part can be bent to make it wrong.
    func assertion(
        audience: String, issuedAt: Date, lifetime: Int = 3600, scope: String = "https://www.googleapis.com/auth/firebase.messaging",
        issuer: String? = nil, keyID: String? = nil, signedBy signer: FCMTestRSAKey? = nil
    ) -> String {
        let header = JSONValue.object(["alg": "RS256", "typ": "JWT", "kid": .string(keyID ?? privateKeyID)])
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let claims = JSONValue.object([
            "iss": .string(issuer ?? clientEmail), "scope": .string(scope), "aud": .string(audience),
            "iat": .int(iat), "exp": .int(iat + Int64(lifetime)),
        ])
        let signingInput = Base64URL.encode(header.serializedBytes) + "." + Base64URL.encode(claims.serializedBytes)
        return signingInput + "." + Base64URL.encode((signer ?? key).signRS256(Array(signingInput.utf8)))
    }
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

enum FCMSimulatorFixtures {
    static let accountA = TestServiceAccount(project: "project-a")
    static let accountB = TestServiceAccount(project: "project-b")
    static let registrationToken = "fGcM0kE1R2s:APA91bH-test_token.value-0001"

    /// A simulator with accounts A and B and its control API published, stopped afterwards.
    static func withSimulator<T>(
        clock: TestClock = TestClock(), _ body: (FCMSimulator, HTTPClient, TestClock) async throws -> T
    ) async throws -> T {
        let simulator = try FCMSimulator(.init(
            controlPort: 0, serviceAccounts: [accountA.serviceAccount, accountB.serviceAccount], now: { clock.now }))
        try simulator.start()
        let client = try HTTPClient()
        do {
            let result = try await body(simulator, client, clock)
            await client.shutdown()
            await simulator.stop()
            return result
        } catch {
            await client.shutdown()
            await simulator.stop()
            throw error
        }
    }

    /// The simulator answers on Swift's shared task pool, which the rest of the suite keeps busy
    /// on a loaded machine: the tests wait for the answer, this only ends a hung one.
    static let answerWait = Duration.seconds(120)

    /// `POST /token` over HTTP/1.1: the status and the JSON answer.
    static func exchange(_ assertion: String, at tokenURL: String, client: HTTPClient,
                         grantType: String = "urn:ietf:params:oauth:grant-type:jwt-bearer") async throws -> (Int, JSONObject) {
        let form = "grant_type=\(formEncode(grantType))&assertion=\(formEncode(assertion))"
        let response = try await client.send(HTTPClientRequest(
            url: tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8),
            timeout: answerWait))
        return (response.status, try JSONValue.parse(response.body).objectValue ?? [:])
    }

    /// An access token for `account` from the simulator's token endpoint.
    static func accessToken(_ account: TestServiceAccount, simulator: FCMSimulator, client: HTTPClient, now: Date) async throws -> String {
        let (status, body) = try await exchange(
            account.assertion(audience: simulator.tokenURL, issuedAt: now), at: simulator.tokenURL, client: client)
        guard status == 200, let token = body["access_token"]?.stringValue else {
            throw FCMSimulatorTestClient.ClientError(message: "token exchange answered \(status): \(body)")
        }
        return token
    }

    /// A control API call over HTTP/1.1.
    static func control(_ method: String, _ path: String, body: String = "", simulator: FCMSimulator,
                        client: HTTPClient) async throws -> (Int, JSONValue?) {
        let response = try await client.send(HTTPClientRequest(
            url: (simulator.controlURL ?? "") + path, method: method, body: Array(body.utf8), timeout: answerWait))
        return (response.status, response.body.isEmpty ? nil : try JSONValue.parse(response.body))
    }

    static func send(_ project: String, token: String = registrationToken, accessToken: String?,
                     message: JSONObject = [:], simulator: FCMSimulator) async throws -> FCMSimulatorTestClient.Response {
        var body = message
        body["token"] = .string(token)
        return try await FCMSimulatorTestClient.send(
            .init(path: "/v1/projects/\(project)/messages:send", accessToken: accessToken,
                  body: JSONValue.object(["message": .object(body)]).serializedBytes),
            port: simulator.port)
    }

    private static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
