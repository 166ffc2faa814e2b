import Testing
import OpenPushCore
@testable import APNs
import HTTP2

@Suite struct APNSEndpointTests {
    @Test(arguments: [
        ("https://api.push.apple.com", true, "api.push.apple.com", 443, "api.push.apple.com"),
        ("https://api.sandbox.push.apple.com:2197", true, "api.sandbox.push.apple.com", 2197, "api.sandbox.push.apple.com:2197"),
        ("http://127.0.0.1:8443/", false, "127.0.0.1", 8443, "127.0.0.1:8443"),
        ("http://localhost", false, "localhost", 80, "localhost"),
        ("http://[::1]:9000", false, "::1", 9000, "[::1]:9000"),
    ] as [(String, Bool, String, UInt16, String)])
    func parsesEndpoints(url: String, tls: Bool, host: String, port: UInt16, authority: String) throws {
        let endpoint = try APNSEndpoint(url: url)
        #expect(endpoint.usesTLS == tls)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.authority == authority)
        #expect(endpoint.scheme == (tls ? "https" : "http"))
    }

    @Test(arguments: ["", "api.push.apple.com", "ftp://host", "https://", "https://host/path", "https://host?x=1"])
    func rejectsOtherURLs(url: String) {
        #expect(throws: APNSConfigurationError.self) { try APNSEndpoint(url: url) }
    }

    @Test func environmentVariablesOverrideTheDefaults() {
        let defaults = APNSClientConfiguration.fromEnvironment([:])
        #expect(defaults.productionURL == "https://api.push.apple.com")
        #expect(defaults.sandboxURL == "https://api.sandbox.push.apple.com")
        #expect(defaults.caFile == nil)
        #expect(defaults.connectionsPerKey == 2)
        let overridden = APNSClientConfiguration.fromEnvironment([
            "OPENPUSH_APNS_PRODUCTION_URL": "http://127.0.0.1:2197",
            "OPENPUSH_APNS_DEVELOPMENT_URL": "http://127.0.0.1:2198",
            "OPENPUSH_APNS_CA_FILE": "ca.pem",
        ])
        #expect(overridden.url(for: .production) == "http://127.0.0.1:2197")
        #expect(overridden.url(for: .sandbox) == "http://127.0.0.1:2198")
        #expect(overridden.caFile == "ca.pem")
    }

    @Test func responsesCarryTheEchoedIDAndTheReasonFromTheBody() {
        let accepted = APNSConnection.response(
            status: 200, headers: [HTTP2Header(name: "apns-id", value: "A"), HTTP2Header(name: "apns-unique-id", value: "U")],
            body: [])
        #expect(accepted == APNSResponse(status: 200, apnsID: "A", apnsUniqueID: "U"))
        let gone = APNSConnection.response(
            status: 410, headers: [], body: Array(#"{"reason":"Unregistered","timestamp":1764488400000}"#.utf8))
        #expect(gone == APNSResponse(status: 410, reason: .unregistered, timestamp: 1_764_488_400_000))
        // A body that is not JSON still leaves the status.
        #expect(APNSConnection.response(status: 500, headers: [], body: Array("oops".utf8)) == APNSResponse(status: 500))
    }

    @Test func wireHeadersPutPseudoHeadersFirstAndLeaveOutAnUnsetCollapseID() throws {
        let endpoint = try APNSEndpoint(url: "https://api.push.apple.com")
        // Expiration 0 ("now or never") is a value and goes out; only the collapse id is optional.
        let apns = APNSHeaders(pushType: .alert, topic: "com.example.app", priority: 10, expiration: 0,
                               apnsID: "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60")
        let push = APNSPush(deviceToken: "abcd", request: APNSRequest(headers: apns, payload: [:]))
        let headers = APNSPendingRequest.headers(for: push, endpoint: endpoint)
        #expect(headers.map(\.name) == [
            ":method", ":scheme", ":authority", ":path", "apns-push-type", "apns-topic", "apns-priority", "apns-expiration",
            "apns-id", "content-length",
        ])
        #expect(headers.map(\.value) == [
            "POST", "https", "api.push.apple.com", "/3/device/abcd", "alert", "com.example.app", "10", "0",
            "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60", "2",
        ])

        var collapsing = push
        collapsing.request.headers.collapseID = "order-58213"
        let withCollapse = APNSPendingRequest.headers(for: collapsing, endpoint: endpoint)
        #expect(withCollapse.first { $0.name == "apns-collapse-id" }?.value == "order-58213")
        // The apns-* headers go out as the Core request lists them.
        #expect(withCollapse.filter { $0.name.hasPrefix("apns-") }.map(\.name) == collapsing.request.headers.fields.map(\.name))
    }

    @Test func reasonsKnowWhatTheyMean() {
        #expect(APNSReason.badDeviceToken.isTokenDead)
        #expect(APNSReason.unregistered.isTokenDead)
        #expect(!APNSReason.badTopic.isTokenDead)
        #expect(APNSReason.invalidProviderToken.isCredentialProblem)
        #expect(!APNSReason.expiredProviderToken.isCredentialProblem)
        #expect(APNSReason.tooManyRequests.isRetryable)
        #expect(APNSReason.payloadTooLarge.isPermanent)
        #expect(APNSReason(rawValue: "SomethingNew").isPermanent)
        #expect(!APNSReason(rawValue: "SomethingNew").isTokenDead)
        // Whether an answer is retried is the classifier's (APNSResponse.isRetryable duplicated it).
        #expect(APNSResponseClassifier.classify(status: 503, reason: "SomethingNew") == .retry(APNSReason("SomethingNew")))
        #expect(APNSResponseClassifier.classify(status: 429, reason: "TooManyRequests") == .retry(.tooManyRequests))
        #expect(APNSResponseClassifier.classify(status: 400, reason: "SomethingNew") == .permanent(APNSReason("SomethingNew")))
        #expect(APNSResponseClassifier.classify(status: 410, reason: "Unregistered") == .deadToken(.unregistered))
        #expect(APNSResponseClassifier.classify(status: 200, reason: nil) == .accepted)
    }
}
