import Foundation
import Testing
import Crypto

@Suite struct TLSConnectionTests {
    /// Writes the CA certificate to a fresh temporary file and removes it afterwards.
    private func withCAFile<T>(_ pem: String, _ body: (String) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-ca-\(UUID().uuidString).pem")
        try Data(pem.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    @Test func handshakeVerifiesTheServerAndNegotiatesH2() throws {
        let (certificate, key) = TestKeys.selfSignedCertificate(commonName: "localhost")
        let (socket, done) = TLSTestServer.start(certificatePEM: certificate, keyPEM: key)
        defer { close(socket) }
        try withCAFile(certificate) { caFile in
            let context = try TLSClientContext(caFile: caFile)
            let connection = try TLSConnection(context: context, socket: socket, hostname: "localhost")
            try connection.handshake()
            #expect(connection.negotiatedALPN == "h2")

            try connection.write(Array("hello".utf8))
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = try connection.read(into: &buffer)
            #expect(Array(buffer.prefix(count)) == Array("hello".utf8))
            #expect(try connection.read(into: &buffer) == 0)  // server's close_notify
            connection.shutdown()
        }
        done.wait()
    }

    @Test func wrongHostnameIsRejected() throws {
        let (certificate, key) = TestKeys.selfSignedCertificate(commonName: "localhost")
        let (socket, done) = TLSTestServer.start(certificatePEM: certificate, keyPEM: key)
        defer { close(socket) }
        try withCAFile(certificate) { caFile in
            let connection = try TLSConnection(
                context: try TLSClientContext(caFile: caFile), socket: socket, hostname: "api.push.apple.com")
            let error = #expect(throws: CryptoError.self) { try connection.handshake() }
            #expect(error?.message.contains("verification failed") == true)
        }
        done.wait()
    }

    @Test func untrustedCertificateIsRejected() throws {
        let (certificate, key) = TestKeys.selfSignedCertificate(commonName: "localhost")
        let (socket, done) = TLSTestServer.start(certificatePEM: certificate, keyPEM: key)
        defer { close(socket) }
        let connection = try TLSConnection(context: try TLSClientContext(), socket: socket, hostname: "localhost")
        let error = #expect(throws: CryptoError.self) { try connection.handshake() }
        #expect(error?.message.contains("self-signed") == true)
        done.wait()
    }

    @Test func missingCAFileIsAnError() {
        #expect(throws: CryptoError.self) { try TLSClientContext(caFile: "does-not-exist.pem") }
    }
}
