import Foundation
import Testing
import OpenPushCore
import APNs

/// The client over TLS (ALPN h2, SNI, verification) against `H2TestServer` with a
/// self-signed certificate made at test time.
@Suite struct APNSClientTLSTests {
    private func withCAFile<T>(_ pem: String, _ body: (String) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-apns-ca-\(UUID().uuidString).pem")
        try Data(pem.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url.path)
    }

    private func tlsServer(agreesToH2: Bool = true) -> (server: H2TestServer, certificatePEM: String) {
        let (certificate, key) = TestKeys.selfSignedCertificate(commonName: "localhost")
        var options = H2TestServer.Options()
        options.tls = (certificate, key)
        options.agreesToH2 = agreesToH2
        return (H2TestServer(options: options, handler: APNSTestSupport.reply), certificate)
    }

    @Test func sendsOverTLSWithATrustedCAFile() async throws {
        let (server, certificate) = tlsServer()
        defer { server.stop() }
        #expect(server.url.hasPrefix("https://localhost:"))
        try await withCAFile(certificate) { caFile in
            let client = try APNSTestSupport.client(server.url, connections: 2, caFile: caFile)
            let requests = (0..<200).map { APNSTestSupport.push(token: APNSTestSupport.token($0 % 5 == 0 ? "bad" : "a", $0)) }
            let results = await client.send(requests, credential: try APNSTestSupport.credential(), environment: .production)
            await client.shutdown()
            for (index, result) in results.enumerated() {
                #expect((try? result.get().status) == (index % 5 == 0 ? 400 : 200))
            }
        }
        let seen = try #require(server.snapshot().requests.first)
        #expect(seen.value(":scheme") == "https")
        #expect(seen.value(":authority") == "localhost:\(server.port)")
    }

    @Test func anUntrustedCertificateIsAConnectError() async throws {
        let (server, _) = tlsServer()
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let error = await #expect(throws: APNSTransportError.self) {
            try await client.send(
                APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: try APNSTestSupport.credential(),
                environment: .production)
        }
        await client.shutdown()
        #expect(error?.kind == .connectFailed)
        #expect(error?.message.contains("verification failed") == true)
        #expect(server.snapshot().requests.isEmpty)
    }

    @Test func aServerThatDoesNotAgreeToH2IsAConnectError() async throws {
        let (server, certificate) = tlsServer(agreesToH2: false)
        defer { server.stop() }
        try await withCAFile(certificate) { caFile in
            let client = try APNSTestSupport.client(server.url, caFile: caFile)
            let error = await #expect(throws: APNSTransportError.self) {
                try await client.send(
                    APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: try APNSTestSupport.credential(),
                    environment: .production)
            }
            await client.shutdown()
            #expect(error?.kind == .connectFailed)
            #expect(error?.message.contains("did not agree to HTTP/2 (ALPN h2)") == true)
        }
        #expect(server.snapshot().requests.isEmpty)
    }

    @Test func aMissingCAFileFailsAtInit() {
        #expect(throws: (any Error).self) {
            try APNSTestSupport.client("https://localhost:1", caFile: "does-not-exist.pem")
        }
    }

    @Test func endpointsAreCheckedAtInit() {
        #expect(throws: APNSConfigurationError.self) { try APNSTestSupport.client("ftp://example.com") }
        #expect(throws: APNSConfigurationError.self) { try APNSTestSupport.client("https://example.com/3/device") }
    }
}
