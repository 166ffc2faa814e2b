import Testing
import OpenPushCore

@Suite struct WebhookURLTests {
    @Test(arguments: ["https://hooks.example.com/openpush", "https://example.com", "https://example.com:8443/a?b=c#d",
                      "https://[2001:db8::1]/x", "https://93.184.216.34/hook", "https://localhost.example.com/"])
    func publicHTTPSURLsPass(_ url: String) {
        #expect(WebhookURL.problem(url, allowPrivate: false) == nil)
    }

    @Test(arguments: [
        ("http://example.com/hook", WebhookURL.Problem.notHTTPS), ("ftp://example.com", .notHTTPS), ("example.com", .notHTTPS),
        ("https://", .noHost), ("https:///path", .noHost), ("https://:443/x", .noHost),
        ("https://localhost/hook", .privateAddress), ("https://api.localhost/", .privateAddress),
        ("https://LOCALHOST./", .badHost),
        ("https://127.0.0.1/", .privateAddress), ("https://127.1/", .privateAddress), ("https://2130706433/", .privateAddress),
        ("https://0x7f000001/", .privateAddress), ("https://10.1.2.3/", .privateAddress), ("https://172.16.0.1/", .privateAddress),
        ("https://172.31.255.255/", .privateAddress), ("https://192.168.1.1:8443/", .privateAddress),
        ("https://169.254.169.254/latest/meta-data", .privateAddress), ("https://0.0.0.0/", .privateAddress),
        ("https://100.64.0.1/", .privateAddress),
        ("https://[::1]/", .privateAddress), ("https://[::]/", .privateAddress), ("https://[fe80::1]/", .privateAddress),
        ("https://[fd00::1]/", .privateAddress), ("https://[fc12:3456::1]/", .privateAddress),
        ("https://[::ffff:127.0.0.1]/", .privateAddress), ("https://[::ffff:10.0.0.1]/", .privateAddress),
        ("https://user:pass@example.com/", .malformed), ("https://exa mple.com/", .malformed),
        ("https://example.com:99999/", .malformed), ("https://[::1/", .malformed),
    ])
    func refusedURLsNameTheirProblem(_ url: String, _ problem: WebhookURL.Problem) {
        #expect(WebhookURL.problem(url, allowPrivate: false) == problem)
    }

    /// libcurl percent-decodes and IDN-converts a host before resolving it: only hosts it takes
    /// as they are pass, whatever private addresses the deployment allows.
    @Test(arguments: ["https://x%2ey.example/", "https://%31%32%37.0.0.1/", "https://\u{E4}.example/", "https://b\u{FC}cher.de/",
                      "https://under_score.example/", "https://a..b.example/", "https://.example.com/", "https://example.com./",
                      "https://example.com.:443/", "https://[fe80::1%25eth0]/", "https://[1.2.3.4]/", "https://ex!ample.com/",
                      "https://exa%6dple.com/", "https://\u{FF0E}example.com/", "https://" + String(repeating: "a", count: 64) + ".example/"])
    func hostsLibcurlWouldRewriteAreRefused(_ url: String) {
        #expect(WebhookURL.problem(url, allowPrivate: false) == .badHost, "\(url)")
        #expect(WebhookURL.problem(url, allowPrivate: true) == .badHost, "\(url)")
        #expect(WebhookURL.sendProblem(url) == .badHost, "\(url)")
        #expect(WebhookURL.Problem.badHost.message.hasPrefix("url "))
    }

    @Test(arguments: ["https://xn--bcher-kva.de/", "https://XN--BCHER-KVA.example/hook", "https://a-b.c-d.example:8443/x%2ey?q=%25",
                      "https://1.2.3.4/", "https://[2001:db8::1]:443/", "https://" + String(repeating: "a", count: 63) + ".example/"])
    func asciiNamesPunycodeAndLiteralsPass(_ url: String) {
        #expect(WebhookURL.problem(url, allowPrivate: false) == nil, "\(url)")
        #expect(WebhookURL.sendProblem(url) == nil, "\(url)")
    }

    @Test func theURLIsAtMost2048Characters() {
        let base = "https://example.com/"
        #expect(WebhookURL.problem(base + String(repeating: "a", count: 2048 - base.count), allowPrivate: false) == nil)
        #expect(WebhookURL.problem(base + String(repeating: "a", count: 2049 - base.count), allowPrivate: false) == .tooLong)
    }

    @Test func allowingPrivateAddressesAllowsLoopbackAndHTTP() {
        for url in ["http://127.0.0.1:9000/hook", "https://localhost/", "http://[::1]:80/", "https://10.0.0.1/"] {
            #expect(WebhookURL.problem(url, allowPrivate: true) == nil, "\(url)")
        }
        #expect(WebhookURL.problem("ftp://127.0.0.1/", allowPrivate: true) == .notHTTPS)
        #expect(WebhookURL.problem("http://", allowPrivate: true) == .noHost)
    }

    @Test func publicAddressesNextToPrivateRangesPass() {
        for host in ["172.32.0.1", "11.0.0.1", "192.169.0.1", "169.255.0.1", "[2001:4860::8888]", "[fec0::1]"] {
            let expected: WebhookURL.Problem? = host == "[fec0::1]" ? .privateAddress : nil
            #expect(WebhookURL.problem("https://\(host)/", allowPrivate: false) == expected, "\(host)")
        }
    }
}

@Suite struct WebhookFieldsTests {
    func problems(_ body: JSONObject, creating: Bool = true) -> [String] {
        let result = creating ? WebhookFields.parseCreate(body, allowPrivate: false) : WebhookFields.parseUpdate(body, allowPrivate: false)
        if case .failure(let error) = result { return error.messages }
        return []
    }

    @Test func aCreateNeedsAURLAndEvents() throws {
        let fields = try WebhookFields.parseCreate(["url": "https://example.com/h", "events": ["delivery.accepted", "click"],
                                                    "description": "Orders"], allowPrivate: false).get()
        #expect(fields.url == "https://example.com/h")
        #expect(fields.events == ["delivery.accepted", "click"])
        #expect(fields.description == .set("Orders"))
        #expect(try WebhookFields.parseCreate(["url": "https://example.com", "events": ["*"]], allowPrivate: false).get().events == ["*"])
        #expect(problems([:]) == ["url is required", "events is required"])
    }

    @Test func eachBadFieldIsNamed() {
        #expect(problems(["url": "http://example.com", "events": ["*"]]) == [WebhookURL.Problem.notHTTPS.message])
        #expect(problems(["url": 3, "events": ["*"]]) == ["url must be a string, got number"])
        #expect(problems(["url": "https://example.com", "events": []]) == [WebhookFields.eventsProblem])
        #expect(problems(["url": "https://example.com", "events": "click"]) == [WebhookFields.eventsProblem])
        #expect(problems(["url": "https://example.com", "events": ["click", "*"]]) == [WebhookFields.wildcardProblem])
        #expect(problems(["url": "https://example.com", "events": ["click", "clicks"]])
                == ["events[1]: unknown event type 'clicks' (known: \(WebhookFields.knownTypes))"])
        #expect(problems(["url": "https://example.com", "events": [1]]) == ["events[0] must be a string, got number"])
        #expect(problems(["url": "https://example.com", "events": ["*"], "description": .string(String(repeating: "d", count: 256))])
                == ["description must be 255 characters or fewer"])
        #expect(problems(["url": "https://example.com", "events": ["*"], "description": 5]) == ["description must be a string or null, got number"])
        #expect(problems(["url": "https://example.com", "events": ["*"], "colour": "red"]) == ["unknown field 'colour'"])
        #expect(problems(["url": "https://example.com", "events": ["*"], "enabled": false]) == ["unknown field 'enabled'"])
    }

    @Test func anUpdateChangesOnlyWhatItNames() throws {
        let fields = try WebhookFields.parseUpdate(["enabled": true, "description": .null], allowPrivate: false).get()
        #expect(fields.url == nil && fields.events == nil)
        #expect(fields.enabled == true)
        #expect(fields.description == .clear)
        #expect(try WebhookFields.parseUpdate([:], allowPrivate: false).get() == WebhookFields())
        #expect(problems(["enabled": "yes"], creating: false) == ["enabled must be a boolean, got string"])
        #expect(problems(["url": .null], creating: false) == ["url must not be null"])
        #expect(problems(["events": []], creating: false) == [WebhookFields.eventsProblem])
    }
}

@Suite struct EventFeedRequestTests {
    @Test func defaultsAndParameters() throws {
        #expect(try EventFeedRequest.read([:]) == EventFeedRequest(after: .start, types: nil, limit: 100))
        let cursor = EventPosition(xid: 900, seq: 42).cursor
        #expect(try EventFeedRequest.read(["after": cursor, "types": "click,delivery.failed,click", "limit": "1000"])
                == EventFeedRequest(after: EventPosition(xid: 900, seq: 42), types: ["click", "delivery.failed"], limit: 1000))
        // A bare `seq` cursor (one number) is not a position.
        #expect(throws: InvalidInput.self) { try EventFeedRequest.read(["after": DeliveryCursor.encode(42)]) }
    }

    @Test func badParametersAreNamedTogether() {
        #expect(throws: InvalidInput([
            EventFeedRequest.invalidCursor, "types: unknown event type 'tap' (known: \(EventFeedRequest.feedTypes))",
            "limit must be an integer from 1 to 1000",
        ])) { try EventFeedRequest.read(["after": "nope", "types": "tap", "limit": "0"]) }
        #expect(throws: InvalidInput.self) { try EventFeedRequest.read(["types": "ping"]) }
        #expect(throws: InvalidInput.self) { try EventFeedRequest.read(["types": ""]) }
        #expect(throws: InvalidInput.self) { try EventFeedRequest.read(["limit": "1001"]) }
    }

    @Test func theNextCursorIsNeverNull() {
        let request = EventFeedRequest(after: EventPosition(xid: 5, seq: 7))
        #expect(request.nextCursor(last: EventPosition(xid: 6, seq: 3)) == EventPosition(xid: 6, seq: 3).cursor)
        #expect(request.nextCursor(last: nil) == EventPosition(xid: 5, seq: 7).cursor)
        #expect(EventFeedRequest().nextCursor(last: nil) == EventPosition.start.cursor)
    }

    @Test func positionsOrderByTransactionThenSeqAndRoundTripThroughTheirCursor() {
        // An event of a transaction that began earlier comes first, whatever its seq.
        #expect(EventPosition(xid: 10, seq: 99) < EventPosition(xid: 11, seq: 1))
        #expect(EventPosition(xid: 10, seq: 1) < EventPosition(xid: 10, seq: 2))
        for position in [EventPosition.start, EventPosition(xid: 1 << 40, seq: 123_456_789), EventPosition(xid: .max, seq: .max)] {
            #expect(position.cursor.count == 22)
            #expect(EventPosition(cursor: position.cursor) == position)
        }
        #expect(EventPosition(cursor: "short") == nil)
        #expect(EventPosition(cursor: String(repeating: "!", count: 22)) == nil)
    }
}

@Suite struct EventDataTests {
    @Test func shapes() {
        #expect(EventData.delivery(notificationID: "msg_1", subscriptionID: "sub_1", tokenKind: .device, apnsID: "A")
                == ["notification_id": "msg_1", "subscription_id": "sub_1", "token_kind": "device", "apns_id": "A"])
        #expect(EventData.delivery(notificationID: "m", subscriptionID: "s", tokenKind: .device, apnsID: "A",
                                   failure: ("BadDeviceToken", 400))["status"] == 400)
        #expect(EventData.tokenInvalidated(subscriptionID: "s", tokenKind: .device, reason: "Unregistered")["activity_id"] == nil)
        #expect(EventData.tokenInvalidated(subscriptionID: "s", tokenKind: .update, reason: nil, activityID: "a")["activity_id"] == "a")
        #expect(EventData.click(notificationID: "m", subscriptionID: "s", activityID: nil, first: true)
                == ["notification_id": "m", "subscription_id": "s", "first": true])
        #expect(EventData.liveActivityEnded(activityID: "a", subscriptionID: "s", cause: "remote")
                == ["activity_id": "a", "subscription_id": "s", "cause": "remote"])
    }
}
