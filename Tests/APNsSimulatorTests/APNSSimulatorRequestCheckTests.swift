import Crypto
import Foundation
import HTTP2
import Testing
@testable import APNsSimulator

/// The simulator's rules without sockets: one request in, one verdict out.
@Suite struct APNSSimulatorRequestCheckTests {
    typealias Fixtures = APNSSimulatorFixtures
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    let provider: APNSSimulatorTestProvider
    let check: APNSSimulatorRequestCheck

    init() throws {
        provider = try APNSSimulatorTestProvider()
        check = APNSSimulatorRequestCheck(
            providerKeys: [provider.keyID: try P256VerifyingKey(publicKeyDER: provider.key.publicKeyDER)],
            acceptAnyToken: false, bundleIDs: nil)
    }

    private func request(
        method: String = "POST", path: String? = nil, token: String = Fixtures.deviceToken(),
        headers overrides: [String: String?] = [:], authorization: String?? = .none,
        extra: [(String, String)] = [], body: [UInt8] = Fixtures.alertPayload
    ) throws -> HTTP2ServerSession.Request {
        let jwt: String? = switch authorization {
        case .none: try provider.token(issuedAt: now.addingTimeInterval(-60))
        case .some(let given): given
        }
        var fields = [
            HTTP2Header(name: ":method", value: method), HTTP2Header(name: ":scheme", value: "https"),
            HTTP2Header(name: ":path", value: path ?? "/3/device/\(token)"),
        ]
        fields += Fixtures.pushHeaders(overrides, authorization: jwt).map { HTTP2Header(name: $0.name, value: $0.value) }
        fields += extra.map { HTTP2Header(name: $0.0, value: $0.1) }
        return HTTP2ServerSession.Request(streamID: 1, headers: fields, body: body)
    }

    private func verdict(_ request: HTTP2ServerSession.Request, check: APNSSimulatorRequestCheck? = nil,
                         at time: Date? = nil) -> APNSSimulatorRequestCheck.Verdict {
        var cache: [String: APNSSimulatorProviderToken] = [:]
        return (check ?? self.check).check(request, now: time ?? now, verifiedTokens: &cache)
    }

    @Test func validPushIsAccepted() throws {
        #expect(verdict(try request()) == .accepted(deviceToken: Fixtures.deviceToken()))
    }

    @Test(arguments: [
        // (method, path, status, reason)
        ("GET", "/3/device/\(APNSSimulatorFixtures.deviceToken())", 405, "MethodNotAllowed"),
        ("POST", "/3/devices/\(APNSSimulatorFixtures.deviceToken())", 404, "BadPath"),
        ("POST", "/", 404, "BadPath"),
        ("POST", "/3/device/", 400, "MissingDeviceToken"),
        ("POST", "/3/device/xyz\(String(repeating: "0", count: 61))", 400, "BadDeviceToken"),
        ("POST", "/3/device/abc", 400, "BadDeviceToken"),
        ("POST", "/3/device/\(String(repeating: "a", count: 65))", 400, "BadDeviceToken"),
    ])
    func pathAndMethod(method: String, path: String, status: Int, reason: String) throws {
        #expect(verdict(try request(method: method, path: path)) == .rejected(status: status, reason: reason))
    }

    @Test(arguments: [
        // (header, value or nil to remove, status, reason)
        ("apns-topic", nil, 400, "MissingTopic"),
        ("apns-topic", "com.example app", 400, "BadTopic"),
        ("apns-push-type", "fax", 400, "InvalidPushType"),
        ("apns-push-type", "liveactivity", 400, "InvalidPushType"),
        ("apns-push-type", "widgets", 400, "InvalidPushType"),
        ("apns-topic", "com.example.app.push-type.liveactivity", 400, "BadTopic"),
        ("apns-priority", "7", 400, "BadPriority"),
        ("apns-priority", "high", 400, "BadPriority"),
        ("apns-id", "not-a-uuid", 400, "BadMessageId"),
        ("apns-id", "8f1b0a2c-0000-4c1f-9e2e-1d7a3b5c6d7e0", 400, "BadMessageId"),
        ("apns-collapse-id", String(repeating: "c", count: 65), 400, "BadCollapseId"),
        ("apns-expiration", "tomorrow", 400, "BadExpirationDate"),
    ] as [(String, String?, Int, String)])
    func headerRules(name: String, value: String?, status: Int, reason: String) throws {
        #expect(verdict(try request(headers: [name: value])) == .rejected(status: status, reason: reason))
    }

    @Test(arguments: [
        ["apns-push-type": "liveactivity", "apns-topic": "com.example.app.push-type.liveactivity", "apns-priority": "5"],
        ["apns-push-type": "widgets", "apns-topic": "com.example.app.push-type.widgets"],
        ["apns-push-type": "background", "apns-priority": "5"],
        ["apns-push-type": "voip", "apns-topic": "com.example.app.voip"],
        ["apns-push-type": nil, "apns-topic": "com.example.app.push-type.liveactivity"],
        ["apns-priority": "1"], ["apns-priority": nil],
        ["apns-id": "8F1B0A2C-0000-4C1F-9E2E-1D7A3B5C6D7E"], ["apns-id": "8f1b0a2c-0000-4c1f-9e2e-1d7a3b5c6d7e"],
        ["apns-collapse-id": String(repeating: "c", count: 64)],
        ["apns-expiration": "0"], ["apns-expiration": "1750086400"],
    ] as [[String: String?]])
    func acceptedHeaderVariants(headers: [String: String?]) throws {
        #expect(verdict(try request(headers: headers)) == .accepted(deviceToken: Fixtures.deviceToken()))
    }

    @Test func duplicateHeadersAreRejected() throws {
        let duplicated = try request(extra: [("apns-topic", "com.example.other")])
        #expect(verdict(duplicated) == .rejected(status: 400, reason: "DuplicateHeaders"))
    }

    @Test func topicsOutsideTheBundleIDsAreDisallowed() throws {
        var restricted = check
        restricted.bundleIDs = ["com.example.app"]
        let live = ["apns-push-type": "liveactivity", "apns-topic": "com.example.app.push-type.liveactivity"]
        #expect(verdict(try request(headers: live), check: restricted) == .accepted(deviceToken: Fixtures.deviceToken()))
        #expect(verdict(try request(headers: ["apns-topic": "com.other.app"]), check: restricted)
            == .rejected(status: 400, reason: "TopicDisallowed"))
    }

    @Test func payloadRules() throws {
        let limit = APNSSimulatorRequestCheck.maxPayloadSize
        let filler = { (count: Int) in Array(#"{"aps":{},"x":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: count) + Array(#""}"#.utf8) }
        let exact = filler(limit - filler(0).count)
        #expect(exact.count == limit)
        #expect(verdict(try request(body: exact)) == .accepted(deviceToken: Fixtures.deviceToken()))
        #expect(verdict(try request(body: filler(limit))) == .rejected(status: 413, reason: "PayloadTooLarge"))
        #expect(verdict(try request(body: [])) == .rejected(status: 400, reason: "PayloadEmpty"))
        #expect(verdict(try request(body: Array("[1]".utf8))) == .rejected(status: 400, reason: "PayloadEmpty"))
        #expect(verdict(try request(body: Array("{nope".utf8))) == .rejected(status: 400, reason: "PayloadEmpty"))
    }

    /// Apple lets a VoIP push carry 5,120 bytes; every other push type keeps 4,096.
    @Test func aVoIPPayloadMayBe5120Bytes() throws {
        let filler = { (count: Int) in Array(#"{"x":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: count) + Array(#""}"#.utf8) }
        let voip: [String: String?] = ["apns-push-type": "voip", "apns-topic": "com.example.app.voip"]
        let exact = filler(APNSSimulatorRequestCheck.maxVoIPPayloadSize - filler(0).count)
        #expect(exact.count == 5120)
        #expect(verdict(try request(headers: voip, body: exact)) == .accepted(deviceToken: Fixtures.deviceToken()))
        #expect(verdict(try request(headers: voip, body: filler(5113))) == .rejected(status: 413, reason: "PayloadTooLarge"))
        #expect(verdict(try request(body: filler(4089))) == .rejected(status: 413, reason: "PayloadTooLarge"))
    }

    // MARK: Provider tokens

    @Test func missingTokenIsRejected() throws {
        #expect(verdict(try request(authorization: .some(nil))) == .rejected(status: 403, reason: "MissingProviderToken"))
    }

    @Test func tokenAgeLimits() throws {
        let fresh = try request(authorization: try provider.token(issuedAt: now.addingTimeInterval(-3599)))
        #expect(verdict(fresh) == .accepted(deviceToken: Fixtures.deviceToken()))
        let old = try request(authorization: try provider.token(issuedAt: now.addingTimeInterval(-3601)))
        #expect(verdict(old) == .rejected(status: 403, reason: "ExpiredProviderToken"))
        let future = try request(authorization: try provider.token(issuedAt: now.addingTimeInterval(3600)))
        #expect(verdict(future) == .rejected(status: 403, reason: "InvalidProviderToken"))
    }

    @Test func aCachedTokenStillAges() throws {
        // The cache spares the signature check, not the age check.
        let request = try request(authorization: try provider.token(issuedAt: now))
        var cache: [String: APNSSimulatorProviderToken] = [:]
        #expect(check.check(request, now: now, verifiedTokens: &cache) == .accepted(deviceToken: Fixtures.deviceToken()))
        #expect(cache.count == 1)
        #expect(check.check(request, now: now.addingTimeInterval(3601), verifiedTokens: &cache)
            == .rejected(status: 403, reason: "ExpiredProviderToken"))
    }

    @Test func invalidTokensAreRejected() throws {
        let stranger = try APNSSimulatorTestProvider(keyID: provider.keyID)
        let valid = try provider.token(issuedAt: now)
        let parts = valid.split(separator: ".").map(String.init)
        let cases: [String] = [
            try provider.token(issuedAt: now, keyID: "UNKNOWNKID"),  // unknown kid
            try stranger.token(issuedAt: now),  // right kid, wrong key
            parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(repeating: 1, count: 64)),  // bad signature
            parts[0] + "." + Base64URL.encode(Array(#"{"iss":"TEAM123456","iat":1}"#.utf8)) + "." + parts[2],  // altered claims
            "not.a.jwt", "garbage", "",
        ]
        for token in cases {
            #expect(verdict(try request(authorization: token)) == .rejected(status: 403, reason: "InvalidProviderToken"),
                    "\(token)")
        }
        let noBearer = try request(extra: []).headers.map { field in
            field.name == "authorization" ? HTTP2Header(name: "authorization", value: valid) : field
        }
        #expect(verdict(HTTP2ServerSession.Request(streamID: 1, headers: noBearer, body: Fixtures.alertPayload))
            == .rejected(status: 403, reason: "InvalidProviderToken"))
    }

    @Test func acceptAnyTokenSkipsTheTokenChecks() throws {
        var lenient = check
        lenient.acceptAnyToken = true
        #expect(verdict(try request(authorization: .some(nil)), check: lenient) == .accepted(deviceToken: Fixtures.deviceToken()))
        #expect(verdict(try request(authorization: "garbage"), check: lenient) == .accepted(deviceToken: Fixtures.deviceToken()))
        // Everything else still counts.
        #expect(verdict(try request(headers: ["apns-priority": "3"]), check: lenient) == .rejected(status: 400, reason: "BadPriority"))
    }

    // MARK: Behaviours

    @Test func longestPrefixWins() {
        var table = APNSSimulator.Behaviour.builtIn(slowDelay: .seconds(2))
        #expect(table.behaviour(forToken: Fixtures.deviceToken("dead")) == .unregistered)
        #expect(table.behaviour(forToken: Fixtures.deviceToken("DEAD")) == .unregistered)
        #expect(table.behaviour(forToken: Fixtures.deviceToken("5105")) == .slow(.seconds(2)))
        #expect(table.behaviour(forToken: Fixtures.deviceToken("abcd")) == nil)
        table["dead00"] = .accept
        #expect(table.behaviour(forToken: Fixtures.deviceToken("dead00")) == .accept)
        #expect(table.behaviour(forToken: Fixtures.deviceToken("dead01")) == .unregistered)
    }
}

@Suite struct APNSSimulatorJSONSyntaxTests {
    @Test(arguments: [
        "{}", " {} ", #"{"aps":{"alert":{"title":"Hi","body":"\u00e9\n\"q\""}},"n":[1,-2.5e3,0,true,false,null],"e":[]}"#,
        #"{"a":{"b":{"c":[{"d":"é"}]}}}"#,
    ])
    func acceptsObjects(text: String) {
        #expect(APNSSimulatorJSONSyntax.isObject(Array(text.utf8)))
    }

    @Test(arguments: [
        "", "  ", "[]", "1", #""s""#, "{", "}", "{}{}", "{} x", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{a:1}"#,
        #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "{\"a\":\"\u{01}\"}",
        #"{"a":[1 2]}"#, String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100),
    ])
    func refusesEverythingElse(text: String) {
        #expect(!APNSSimulatorJSONSyntax.isObject(Array(text.utf8)))
    }

    @Test func madeUpAPNSIDsAreVersion4UUIDs() {
        let ids = (0..<100).map { _ in APNSSimulatorConnection.makeAPNSID() }
        #expect(Set(ids).count == 100)
        for id in ids {
            #expect(APNSSimulatorRequestCheck.isUUID(id))
            #expect(id == id.lowercased())
            #expect(Array(id)[14] == "4")
            #expect(UUID(uuidString: id) != nil)
        }
    }
}
