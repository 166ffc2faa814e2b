import OpenPushCore
import Testing

/// The endpoint checked again at send time, and its origin as the VAPID audience.
@Suite struct WebPushEndpointTests {
    static let hosts = WebPushHostPattern.defaults + [.exact("127.0.0.1")]

    @Test func originLeavesOutTheDefaultPort() throws {
        let fcm = try WebPushEndpoint.checked("https://fcm.googleapis.com/fcm/send/abc:def", hosts: Self.hosts, allowPrivate: false).get()
        #expect(fcm.origin == "https://fcm.googleapis.com")
        let edge = try WebPushEndpoint.checked("https://DB5P.notify.windows.com:8443/w/?token=x", hosts: Self.hosts, allowPrivate: false).get()
        #expect(edge.origin == "https://db5p.notify.windows.com:8443")
        let local = try WebPushEndpoint.checked("http://127.0.0.1:2210/push/x", hosts: Self.hosts, allowPrivate: true).get()
        #expect(local.origin == "http://127.0.0.1:2210")
    }

    @Test func refusedEndpoints() {
        func problem(_ url: String, allowPrivate: Bool = false) -> WebPushEndpoint.Problem? {
            if case .failure(let problem) = WebPushEndpoint.checked(url, hosts: Self.hosts, allowPrivate: allowPrivate) { return problem }
            return nil
        }
        #expect(problem("https://evil.example.com/push") == .hostNotAllowed("evil.example.com"))
        #expect(problem("http://fcm.googleapis.com/fcm/send/x") == .notHTTPS)
        #expect(problem("https://127.0.0.1/push/x") == .privateAddress)
        #expect(problem("https://127.0.0.1/push/x", allowPrivate: true) == nil)
        #expect(problem("https://user@fcm.googleapis.com/x") == .malformed(.malformed))
        #expect(problem("ftp://fcm.googleapis.com/x") == .malformed(.notHTTPS))
    }
}
