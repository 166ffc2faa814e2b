import Crypto
import HTTPClient
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import Synchronization
import Testing

/// A local OAuth token endpoint: checks each assertion's RS256 signature against the public key
/// registered for its `kid` and its claims, and answers `tok-<n>` for one hour; a `kid` it does
/// not know gets `400 invalid_grant`. While `held`, answers wait until it is released.
final class FCMTestTokenEndpoint: HTTPResponder {
    struct State {
        var keys: [String: [UInt8]] = [:]
        var issued = 0
        var claims: [JSONObject] = []
        var problems: [String] = []
        var held = false
    }

    let state = Mutex(State())
    let audience: Mutex<String> = Mutex("")

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        while state.withLock({ $0.held }) { try? await Task.sleep(for: .milliseconds(5)) }
        let form = Dictionary(String(decoding: request.body, as: UTF8.self).split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { first, _ in first })
        guard request.method == .post, request.headers["Content-Type"] == "application/x-www-form-urlencoded",
              form["grant_type"] == "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer",
              let jwt = form["assertion"] else { return fail("bad request shape") }
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = (try? JSONValue.parse(headerBytes))?.objectValue,
              let claims = (try? JSONValue.parse(claimBytes))?.objectValue else { return fail("not a JWT") }
        guard header["alg"] == "RS256", header["typ"] == "JWT", let kid = header["kid"]?.stringValue else {
            return fail("bad header \(header)")
        }
        guard let der = state.withLock({ $0.keys[kid] }) else {
            return HTTPResponse(status: 400, body: Array(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#.utf8))
        }
        let signed = Array("\(parts[0]).\(parts[1])".utf8)
        guard let key = try? RSAVerifyingKey(publicKeyDER: der), key.isValidRS256Signature(signature, for: signed) else {
            return fail("bad signature")
        }
        return state.withLock { state in
            state.claims.append(claims)
            state.issued += 1
            return HTTPResponse(status: 200, body: Array(#"{"access_token":"tok-\#(state.issued)","expires_in":3599,"token_type":"Bearer"}"#.utf8))
        }
    }

    private func fail(_ problem: String) -> HTTPResponse {
        state.withLock { $0.problems.append(problem) }
        return HTTPResponse(status: 500, body: Array(problem.utf8))
    }
}

@Suite struct FCMAccessTokensTests {
    static func account(project: String = "shop-1", keyID: String = "key-1", pem: String) -> FCMServiceAccount {
        FCMServiceAccount(projectID: project, privateKeyID: keyID, privateKey: pem, clientEmail: "fcm@\(project).iam.gserviceaccount.com")
    }

    /// Runs `body` with an endpoint that knows `accounts`' keys, a client, and the token URL.
    static func withEndpoint(knowing accounts: [FCMServiceAccount],
                             _ body: (FCMTestTokenEndpoint, FCMAccessTokens, String) async throws -> Void) async throws {
        let endpoint = FCMTestTokenEndpoint()
        for account in accounts {
            let der = try RSASigningKey(pem: account.privateKey).publicKeyDER
            endpoint.state.withLock { $0.keys[account.privateKeyID] = der }
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 2),
                                responder: endpoint)
        try server.start()
        let client = try HTTPClient()
        let url = "http://127.0.0.1:\(server.port)/token"
        let tokens = FCMAccessTokens(tokenURL: url, client: client)
        do {
            try await body(endpoint, tokens, url)
        } catch {
            await client.shutdown()
            await server.shutdown()
            throw error
        }
        await client.shutdown()
        await server.shutdown()
    }

    @Test func theAssertionIsSignedAndCarriesTheClaims() async throws {
        let account = Self.account(pem: try RSASigningKey.generatePEM())
        try await Self.withEndpoint(knowing: [account]) { endpoint, tokens, url in
            let token = try await tokens.token(for: account, now: 1_796_022_000.4)
            #expect(token == FCMAccessToken(value: "tok-1", expiresAt: 1_796_022_000.4 + 3599, refreshAt: 1_796_022_000.4 + 3299))
            let state = endpoint.state.withLock { $0 }
            #expect(state.problems.isEmpty)
            #expect(state.claims == [[
                "iss": "fcm@shop-1.iam.gserviceaccount.com", "scope": "https://www.googleapis.com/auth/firebase.messaging",
                "aud": .string(url), "iat": 1_796_022_000, "exp": 1_796_025_600,
            ]])
        }
    }

    @Test func manyCallersAtOnceShareOneFetch() async throws {
        let account = Self.account(pem: try RSASigningKey.generatePEM())
        try await Self.withEndpoint(knowing: [account]) { endpoint, tokens, _ in
            endpoint.state.withLock { $0.held = true }
            let callers = 20
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<callers { group.addTask { try await tokens.token(for: account, now: 1000).value } }
                // Every caller waits on the one exchange before it is answered.
                while await tokens.waitingCallers < callers { await Task.yield() }
                endpoint.state.withLock { $0.held = false }
                var values: [String] = []
                for try await value in group { values.append(value) }
                #expect(values == Array(repeating: "tok-1", count: callers))
            }
            #expect(await tokens.fetchCount == 1)
            #expect(endpoint.state.withLock { $0.issued } == 1)
            // Later callers get the cached token.
            #expect(try await tokens.token(for: account, now: 2000).value == "tok-1")
            #expect(endpoint.state.withLock { $0.issued } == 1)
        }
    }

    @Test func aTokenIsReplacedBeforeItExpiresAndAfterInvalidate() async throws {
        let account = Self.account(pem: try RSASigningKey.generatePEM())
        try await Self.withEndpoint(knowing: [account]) { endpoint, tokens, _ in
            let first = try await tokens.token(for: account, now: 1000)
            #expect(try await tokens.token(for: account, now: 1000 + 3298).value == "tok-1")
            // Within five minutes of its expiry: a new one.
            let second = try await tokens.token(for: account, now: 1000 + 3299)
            #expect(second.value == "tok-2")
            // A 401 from FCM for the old token does not drop the newer one.
            await tokens.invalidate(first, for: account)
            #expect(try await tokens.token(for: account, now: 4400).value == "tok-2")
            await tokens.invalidate(second, for: account)
            #expect(try await tokens.token(for: account, now: 4400).value == "tok-3")
            #expect(endpoint.state.withLock { $0.issued } == 3)
        }
    }

    @Test func eachServiceAccountHasItsOwnToken() async throws {
        let shop = Self.account(project: "shop", keyID: "key-shop", pem: try RSASigningKey.generatePEM())
        let news = Self.account(project: "news", keyID: "key-news", pem: try RSASigningKey.generatePEM())
        try await Self.withEndpoint(knowing: [shop, news]) { endpoint, tokens, _ in
            let shopToken = try await tokens.token(for: shop, now: 1000)
            let newsToken = try await tokens.token(for: news, now: 1000)
            #expect(shopToken.value != newsToken.value)
            await tokens.invalidate(shopToken, for: shop)
            #expect(try await tokens.token(for: news, now: 1001) == newsToken)
            #expect(endpoint.state.withLock { $0.claims.map { $0["iss"] } } == [
                "fcm@shop.iam.gserviceaccount.com", "fcm@news.iam.gserviceaccount.com",
            ])
        }
    }

    @Test func aRefusedKeyIsAnErrorNamingTheReasonAndIsNotCached() async throws {
        let known = Self.account(project: "shop", keyID: "key-known", pem: try RSASigningKey.generatePEM())
        let unknown = Self.account(project: "other", keyID: "key-revoked", pem: try RSASigningKey.generatePEM())
        try await Self.withEndpoint(knowing: [known]) { endpoint, tokens, _ in
            for _ in 0..<2 {
                await #expect(throws: FCMAccessTokenError.refused("HTTP 400 invalid_grant: Invalid JWT Signature.")) {
                    try await tokens.token(for: unknown, now: 1000)
                }
            }
            #expect(await tokens.fetchCount == 2)
            // The other account is unaffected.
            let token = try await tokens.token(for: known, now: 1000)
            #expect(token.value == "tok-1")
            #expect(endpoint.state.withLock { $0.problems }.isEmpty)
        }
    }

    @Test func answersOtherThanARefusalAreWorthRetrying() throws {
        #expect(throws: FCMAccessTokenError.refused("HTTP 401 invalid_client")) {
            try FCMAccessTokens.token(from: HTTPClientResponse(status: 401, body: Array(#"{"error":"invalid_client"}"#.utf8)), now: 0)
        }
        #expect(throws: FCMAccessTokenError.unavailable("HTTP 503")) {
            try FCMAccessTokens.token(from: HTTPClientResponse(status: 503, body: []), now: 0)
        }
        #expect(throws: FCMAccessTokenError.self) {
            try FCMAccessTokens.token(from: HTTPClientResponse(status: 200, body: Array(#"{"token_type":"Bearer"}"#.utf8)), now: 0)
        }
    }

    @Test func theCacheIsBounded() async throws {
        let accounts = try (0..<3).map { Self.account(project: "p\($0)", keyID: "k\($0)", pem: try RSASigningKey.generatePEM()) }
        try await Self.withEndpoint(knowing: accounts) { _, _, url in
            let client = try HTTPClient()
            let tokens = FCMAccessTokens(tokenURL: url, client: client, maxEntries: 2)
            for (index, account) in accounts.enumerated() { _ = try await tokens.token(for: account, now: Double(1000 + index)) }
            #expect(await tokens.count == 2)
            await client.shutdown()
        }
    }
}
