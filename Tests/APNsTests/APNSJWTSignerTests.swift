import Foundation
import Testing
import APNs
import Crypto
import OpenPushCore

@Suite struct APNSJWTSignerTests {
    private let start = 1_800_000_000.0

    private func credential() throws -> APNSProviderKey {
        APNSProviderKey(
            keyID: "ABC123DEFG", teamID: "DEF123GHIJ",
            signingKey: try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256")))
    }

    @Test func theTokenIsAnES256JWTWithKidIssAndIat() throws {
        let credential = try credential()
        let token = try APNSJWTSigner(credential: credential).token(now: start + 0.9)
        #expect(token.issuedAt == Int64(start))
        let parts = token.jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        #expect(!token.jwt.contains("="))

        let header = try JSONValue.parse(try #require(TestBase64URL.decode(parts[0])))
        #expect(header == ["alg": "ES256", "kid": "ABC123DEFG"])
        let claims = try JSONValue.parse(try #require(TestBase64URL.decode(parts[1])))
        #expect(claims == ["iss": "DEF123GHIJ", "iat": .int(Int64(start))])

        let signature = try #require(TestBase64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        #expect(try TestKeys.verifyES256(
            rawSignature: signature, message: signingInput, publicKeyDER: credential.signingKey.publicKeyDER))
        // And not for another message or another key.
        #expect(try !TestKeys.verifyES256(
            rawSignature: signature, message: signingInput + [0x2e], publicKeyDER: credential.signingKey.publicKeyDER))
        let other = try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        #expect(try !TestKeys.verifyES256(rawSignature: signature, message: signingInput, publicKeyDER: other.publicKeyDER))
    }

    @Test func keyAndTeamIDsAreJSONEscaped() throws {
        var credential = try credential()
        credential.keyID = "a\"b"
        let token = try APNSJWTSigner.sign(credential, issuedAt: 1)
        let header = try JSONValue.parse(try #require(TestBase64URL.decode(String(token.jwt.split(separator: ".")[0]))))
        #expect(header.objectValue?["kid"] == "a\"b")
    }

    @Test func theTokenIsCachedForFiftyMinutesThenRenewed() throws {
        let signer = APNSJWTSigner(credential: try credential())
        let first = try signer.token(now: start)
        #expect(try signer.token(now: start + 49 * 60) == first)
        let second = try signer.token(now: start + 50 * 60)
        #expect(second != first)
        #expect(second.issuedAt == Int64(start) + 50 * 60)
        #expect(try signer.token(now: start + 60 * 60) == second)
    }

    @Test func anExpiredVerdictRenewsOnlyAfterTwentyMinutesAndOnlyOnce() throws {
        let signer = APNSJWTSigner(credential: try credential())
        let first = try signer.token(now: start)
        // Too soon: APNs would answer TooManyProviderTokenUpdates.
        #expect(try signer.refresh(rejected: first.jwt, now: start + 19 * 60) == first)
        let second = try signer.refresh(rejected: first.jwt, now: start + 21 * 60)
        #expect(second != first)
        #expect(second.issuedAt == Int64(start) + 21 * 60)
        // The other requests rejected with the first token get the second, not a third.
        #expect(try signer.refresh(rejected: first.jwt, now: start + 21 * 60 + 1) == second)
        #expect(try signer.token(now: start + 22 * 60) == second)
    }

    @Test func concurrentAskersShareOneToken() async throws {
        let signer = APNSJWTSigner(credential: try credential())
        let start = self.start
        let tokens = try await withThrowingTaskGroup(of: APNSProviderToken.self) { group in
            for _ in 0..<50 { group.addTask { try signer.token(now: start) } }
            return try await group.reduce(into: Set<APNSProviderToken>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
    }
}

/// Base64url without padding → bytes, written independently of `Crypto.Base64URL`.
enum TestBase64URL {
    static func decode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
