import Testing
import OpenPushCore

/// The endpoint rules a browser subscription is registered under, without a server: the host
/// list, the private-address rule, and which browser an endpoint belongs to.
@Suite struct WebPushRegistrationEndpointTests {
    static let hosts = WebPushHostPattern.defaults

    @Test func knownPushServicesPassAndTheirBrowserIsTheHosts() {
        for (endpoint, browser) in [("https://fcm.googleapis.com/fcm/send/a", WebPushBrowser.chrome),
                                    ("https://updates.push.services.mozilla.com/wpush/v2/a", .firefox),
                                    ("https://web.push.apple.com/a", .safari),
                                    ("https://WNS2-PAR02P.notify.windows.com:443/w/?token=a", .edge)] {
            #expect(WebPushRegistrationEndpoint.problem(endpoint, hosts: Self.hosts, allowPrivate: false) == nil, "\(endpoint)")
            #expect(WebPushRegistrationEndpoint.browser(endpoint: endpoint, sent: .safari) == browser, "\(endpoint)")
        }
        #expect(WebPushRegistrationEndpoint.browser(endpoint: "https://push.example.test/a", sent: .firefox) == .firefox)
        #expect(WebPushRegistrationEndpoint.browser(endpoint: "https://push.example.test/a", sent: nil) == .chrome)
        #expect(WebPushRegistrationEndpoint.host(of: "https://[::1]:8443/x") == "::1")
    }

    @Test func everythingElseIsRefusedSayingWhy() {
        let refused: [(String, String)] = [
            ("http://fcm.googleapis.com/a", "must be an https:// push subscription endpoint"),
            ("https://a:b@fcm.googleapis.com/a", "must be a URL without spaces, control characters or credentials"),
            ("https://fcm.googleapis.com.evil.test/a", "must be on a known push service's host"),
            ("https://notify.windows.com/a", "must be on a known push service's host"),
            ("https://127.0.0.1/a", "must not point at a private, loopback or link-local address"),
        ]
        for (endpoint, problem) in refused {
            let found = WebPushRegistrationEndpoint.problem(endpoint, hosts: Self.hosts + [.exact("127.0.0.1")], allowPrivate: false)
            #expect(found?.hasPrefix(problem) == true, "\(endpoint): \(found ?? "accepted")")
        }
        // Where private addresses are allowed (tests, openpush dev), a listed local host and http:// pass.
        #expect(WebPushRegistrationEndpoint.problem("http://127.0.0.1:9/a", hosts: [.exact("127.0.0.1")], allowPrivate: true) == nil)
        #expect(WebPushRegistrationEndpoint.problem("http://127.0.0.1:9/a", hosts: Self.hosts, allowPrivate: true) != nil)
    }
}
