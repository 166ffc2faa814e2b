import Testing
import OpenPushServer

@Suite struct PresentedKeyTests {
    @Test(arguments: [
        ("Key abc123", "abc123"),
        ("key abc123", "abc123"),
        ("Basic abc123", "abc123"),
        ("Bearer abc123", "abc123"),
        ("abc123", "abc123"),
        ("  Key   abc123  ", "abc123"),
        // Genuine Basic credentials are taken literally, never decoded.
        ("Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ])
    func readsTheLiteralTextAfterTheScheme(_ header: String, _ key: String) {
        #expect(PresentedKey.candidates(authorization: header, apiKeyHeader: nil) == [key])
    }

    @Test func schemeWithoutKeyIsNothing() {
        #expect(PresentedKey.candidates(authorization: "Key", apiKeyHeader: nil).isEmpty)
        #expect(PresentedKey.candidates(authorization: "Bearer  ", apiKeyHeader: nil).isEmpty)
        #expect(PresentedKey.candidates(authorization: nil, apiKeyHeader: nil).isEmpty)
    }

    @Test func apiKeyHeaderIsACandidateToo() {
        #expect(PresentedKey.candidates(authorization: nil, apiKeyHeader: "k1") == ["k1"])
        #expect(PresentedKey.candidates(authorization: "Key k1", apiKeyHeader: "k2") == ["k1", "k2"])
        #expect(PresentedKey.candidates(authorization: "Key k1", apiKeyHeader: "k1") == ["k1"])
    }
}
