import Foundation
import Testing
import Crypto

@Suite struct TLSServerConnectionTests {
    /// Serves one TLS session on its own thread: handshake, echo one read, close_notify.
    private func serveOnce(_ context: TLSServerContext, socket: Int32) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let box = UncheckedBox((context, socket))
        Thread {
            let (context, socket) = box.value
            defer { close(socket); done.signal() }
            guard let connection = try? TLSServerConnection(context: context, socket: socket),
                  (try? connection.handshake()) != nil else { return }
            var buffer = [UInt8](repeating: 0, count: 1024)
            if case .transferred(let count)? = try? connection.read(into: &buffer) {
                _ = buffer.prefix(count).withUnsafeBytes { try? connection.write($0) }
            }
            connection.shutdown()
        }.start()
        return done
    }

    private func socketPair() -> (client: Int32, server: Int32) {
        signal(SIGPIPE, SIG_IGN)
        var sockets: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0)
        return (sockets[0], sockets[1])
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func selfSignedCertificateIsTrustedForItsNamesAndALPNPicksH2(hostname: String) throws {
        let certificate = try SelfSignedCertificate.generate()
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-ca-\(UUID().uuidString).pem")
        try Data(certificate.certificatePEM.utf8).write(to: caFile)
        defer { try? FileManager.default.removeItem(at: caFile) }

        let server = try TLSServerContext(certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM)
        let (clientSocket, serverSocket) = socketPair()
        defer { close(clientSocket) }
        let done = serveOnce(server, socket: serverSocket)

        let client = try TLSConnection(
            context: try TLSClientContext(caFile: caFile.path, alpn: ["http/1.1", "h2"]), socket: clientSocket, hostname: hostname)
        try client.handshake()
        #expect(client.negotiatedALPN == "h2")
        try client.write(Array("ping".utf8))
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = try client.read(into: &buffer)
        #expect(Array(buffer.prefix(count)) == Array("ping".utf8))
        done.wait()
    }

    @Test func otherNamesAreRejected() throws {
        let certificate = try SelfSignedCertificate.generate()
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-ca-\(UUID().uuidString).pem")
        try Data(certificate.certificatePEM.utf8).write(to: caFile)
        defer { try? FileManager.default.removeItem(at: caFile) }
        let server = try TLSServerContext(certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM)
        let (clientSocket, serverSocket) = socketPair()
        defer { close(clientSocket) }
        let done = serveOnce(server, socket: serverSocket)
        let client = try TLSConnection(
            context: try TLSClientContext(caFile: caFile.path), socket: clientSocket, hostname: "api.push.apple.com")
        #expect(throws: CryptoError.self) { try client.handshake() }
        done.wait()
    }

    @Test func mismatchedKeyIsRefused() throws {
        let one = try SelfSignedCertificate.generate()
        let other = try SelfSignedCertificate.generate()
        #expect(throws: CryptoError.self) {
            try TLSServerContext(certificatePEM: one.certificatePEM, privateKeyPEM: other.privateKeyPEM)
        }
    }
}

/// Moves a value the test knows is used by one thread at a time across a thread boundary.
struct UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
