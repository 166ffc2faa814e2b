import FCMSimulator
import Foundation
import OpenPushCore
import Testing

private typealias Fixtures = FCMSimulatorFixtures

/// `POST /token`: Google's JWT-bearer exchange, with the assertion's signature checked
/// against the service account's key.
@Suite struct FCMSimulatorTokenTests {
    @Test func aSignedAssertionGetsAnAccessTokenForThatAccount() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            let (status, body) = try await Fixtures.exchange(
                Fixtures.accountA.assertion(audience: simulator.tokenURL, issuedAt: clock.now), at: simulator.tokenURL, client: client)
            #expect(status == 200)
            #expect(body["access_token"]?.stringValue?.isEmpty == false)
            #expect(body["expires_in"] == 3600)
            #expect(body["token_type"] == "Bearer")
            #expect(simulator.counters.tokenRequests == 1 && simulator.counters.accessTokensIssued == 1)
            // The loopback host may also be spelt localhost in `aud`.
            let localhost = simulator.tokenURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let (again, _) = try await Fixtures.exchange(
                Fixtures.accountB.assertion(audience: localhost, issuedAt: clock.now), at: simulator.tokenURL, client: client)
            #expect(again == 200)
        }
    }

    @Test func aBadSignatureIsRefused() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            // Account A's claims, signed with account B's key.
            let forged = Fixtures.accountA.assertion(audience: simulator.tokenURL, issuedAt: clock.now, signedBy: Fixtures.accountB.key)
            let (status, body) = try await Fixtures.exchange(forged, at: simulator.tokenURL, client: client)
            #expect(status == 400)
            #expect(body == ["error": "invalid_grant", "error_description": "Invalid JWT Signature."])
            // One byte of the signature changed.
            var tampered = Array(Fixtures.accountA.assertion(audience: simulator.tokenURL, issuedAt: clock.now).utf8)
            tampered[tampered.count - 5] = tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let (tamperedStatus, tamperedBody) = try await Fixtures.exchange(
                String(decoding: tampered, as: UTF8.self), at: simulator.tokenURL, client: client)
            #expect(tamperedStatus == 400 && tamperedBody["error"] == "invalid_grant")
            #expect(simulator.counters.accessTokensIssued == 0)
        }
    }

    @Test func wrongClaimsAreRefusedAsGoogleRefusesThem() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            let account = Fixtures.accountA, url = simulator.tokenURL, now = clock.now
            let cases: [(String, String, String)] = [
                (account.assertion(audience: "https://oauth2.googleapis.com/token", issuedAt: now), "invalid_grant", "aud"),
                (account.assertion(audience: url, issuedAt: now, scope: "https://www.googleapis.com/auth/cloud-platform"),
                 "invalid_scope", "scope"),
                (account.assertion(audience: url, issuedAt: now, lifetime: 3601), "invalid_grant", "lifetime"),
                (account.assertion(audience: url, issuedAt: now.addingTimeInterval(-7200)), "invalid_grant", "expired"),
                (account.assertion(audience: url, issuedAt: now, issuer: "someone@else.iam.gserviceaccount.com"), "invalid_client", "iss"),
                (account.assertion(audience: url, issuedAt: now, keyID: "another-key"), "invalid_grant", "kid"),
                ("not.a.jwt", "invalid_grant", "garbage"),
            ]
            for (assertion, error, what) in cases {
                let (status, body) = try await Fixtures.exchange(assertion, at: url, client: client)
                #expect(status == 400, "\(what)")
                #expect(body["error"]?.stringValue == error, "\(what): \(body)")
                #expect(body["error_description"]?.stringValue?.isEmpty == false, "\(what)")
            }
            let (status, body) = try await Fixtures.exchange(
                account.assertion(audience: url, issuedAt: now), at: url, client: client, grantType: "client_credentials")
            #expect(status == 400 && body["error"] == "unsupported_grant_type")
            #expect(simulator.counters.tokenRequests == cases.count + 1 && simulator.counters.accessTokensIssued == 0)
        }
    }

    @Test func aServiceAccountKeyFileIsReadAndCheckedForRSA() throws {
        let account = try FCMSimulator.ServiceAccount(json: Fixtures.accountA.keyFileJSON)
        #expect(account.clientEmail == Fixtures.accountA.clientEmail && account.projectID == "project-a")
        #expect(account.privateKeyID == Fixtures.accountA.privateKeyID)
        #expect(throws: FCMSimulatorError.self) { try FCMSimulator.ServiceAccount(json: Array("{}".utf8)) }
        #expect(throws: FCMSimulatorError.self) {
            try FCMSimulator.ServiceAccount(json: Array(#"{"type":"authorized_user"}"#.utf8))
        }
        var notRSA = Fixtures.accountA.serviceAccount
        notRSA.privateKeyPEM = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        #expect(throws: FCMSimulatorError.self) { try FCMSimulator(.init(serviceAccounts: [notRSA])) }
    }
}
