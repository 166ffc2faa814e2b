import Foundation
import Testing
import APNs
import APNsSimulator
import Crypto
import OpenPushCore
import OpenPushTestSupport

/// Certificate authentication on the wire: the APNs client's connections for a certificate
/// present it (and send no `authorization`), the TLS simulator verifies it against its client
/// CA and holds its pushes to the certificate's topics, and no two credentials — keys of two
/// teams, two certificates — ever share a connection.
@Suite struct APNSCertificateTransportTests {
    /// A TLS simulator trusting `certificates`' CA and knowing `keys`, and a client that trusts it.
    struct Setup {
        let certificates: TestCertificates
        let simulator: APNSSimulator
        let client: APNSClient

        static func make(keys: [String: P256SigningKey] = [:], connections: Int = 1) async throws -> Setup {
            // A peer that hangs up mid-TLS must be an error, not SIGPIPE ending the test process.
            signal(SIGPIPE, SIG_IGN)
            let certificates = try await TestCertificates.make()
            let serverCertificate = certificates.directory + "/simulator.pem"
            let simulator = try APNSSimulator(.init(
                transport: .tls(certificatePath: serverCertificate), clientCAPath: certificates.caPath,
                providerKeys: keys.mapValues(\.publicKeyDER)))
            try simulator.start()
            let client = try APNSClient(configuration: APNSClientConfiguration(
                productionURL: simulator.endpoint, sandboxURL: simulator.endpoint, connectionsPerKey: connections,
                caFile: serverCertificate, connectTimeout: 10, requestTimeout: 20))
            return Setup(certificates: certificates, simulator: simulator, client: client)
        }

        func certificate(bundleID: String, topics: [String]? = nil) async throws -> APNSCredential {
            let issued = try await certificates.issue(bundleID: bundleID, topics: topics)
            return .certificate(try APNSClientCertificate(pem: issued.certificatePEM + "\n" + issued.keyPEM))
        }

        func stop() async {
            await client.shutdown()
            simulator.stop()
        }
    }

    static func push(topic: String, token: String = String(repeating: "ab", count: 32),
                     type: APNSPushType = .alert) -> APNSPush {
        let headers = APNSHeaders(pushType: type, topic: topic, priority: 10, expiration: 0,
                                  apnsID: UUID().uuidString.lowercased())
        return APNSPush(deviceToken: token, request: APNSRequest(headers: headers, payload: ["aps": ["alert": "hello"]]))
    }

    static func key() throws -> P256SigningKey {
        try P256SigningKey(pem: P256SigningKey.generatePEM())
    }

    @Test func aCertificatesPushGoesWithoutAuthorizationAndAKeysAlongsideWithAJWT() async throws {
        let signingKey = try Self.key()
        let setup = try await Setup.make(keys: ["KEYAAAAAAA": signingKey])
        let certificate = try await setup.certificate(bundleID: "com.example.cert")
        let token = APNSCredential(keyID: "KEYAAAAAAA", teamID: "TEAMAAAAAA", signingKey: signingKey)

        let byCertificate = try await setup.client.send(Self.push(topic: "com.example.cert"), credential: certificate,
                                                        environment: .production)
        let byKey = try await setup.client.send(Self.push(topic: "com.example.key", token: String(repeating: "cd", count: 32)),
                                                credential: token, environment: .production)
        await setup.stop()
        #expect(byCertificate.status == 200)
        #expect(byKey.status == 200)

        let pushes = setup.simulator.accepted()
        let certificatePush = try #require(pushes.first { $0.header("apns-topic") == "com.example.cert" })
        #expect(certificatePush.authentication == .certificate(uid: "com.example.cert"))
        #expect(certificatePush.header("authorization") == nil)
        let keyPush = try #require(pushes.first { $0.header("apns-topic") == "com.example.key" })
        #expect(keyPush.authentication == .providerToken(keyID: "KEYAAAAAAA", teamID: "TEAMAAAAAA"))
        #expect(keyPush.header("authorization")?.hasPrefix("bearer ") == true)
        #expect(certificatePush.connectionID != keyPush.connectionID)
    }

    @Test func aTopicOutsideTheCertificateIsTopicDisallowed() async throws {
        let setup = try await Setup.make()
        let certificate = try await setup.certificate(
            bundleID: "com.example.cert", topics: ["com.example.cert", "com.example.cert.voip"])

        let own = try await setup.client.send(Self.push(topic: "com.example.cert"), credential: certificate, environment: .sandbox)
        let voip = try await setup.client.send(Self.push(topic: "com.example.cert.voip", type: .voip), credential: certificate,
                                               environment: .sandbox)
        let complication = try await setup.client.send(
            Self.push(topic: "com.example.cert.complication", type: .complication), credential: certificate, environment: .sandbox)
        let other = try await setup.client.send(Self.push(topic: "com.example.other"), credential: certificate,
                                                environment: .sandbox)
        await setup.stop()
        #expect(own.status == 200)
        #expect(voip.status == 200)
        #expect(complication.status == 400)
        #expect(complication.reason == .topicDisallowed)
        #expect(other.status == 400)
        #expect(other.reason == .topicDisallowed)
        #expect(setup.simulator.accepted().map { $0.header("apns-topic") } == ["com.example.cert", "com.example.cert.voip"])
    }

    @Test func aRefusedCertificateIsAnsweredAsAppleDoesAndOnlyItsPushes() async throws {
        let setup = try await Setup.make()
        let refused = try await setup.certificate(bundleID: "com.example.refused")
        let wrongEnvironment = try await setup.certificate(bundleID: "com.example.sandboxonly")
        let fine = try await setup.certificate(bundleID: "com.example.fine")
        setup.simulator.setCertificateBehaviour(.init(status: 403, reason: "BadCertificate"), forUID: "com.example.refused")
        setup.simulator.setCertificateBehaviour(.init(status: 403, reason: "BadCertificateEnvironment"),
                                                forUID: "com.example.sandboxonly")

        let first = try await setup.client.send(Self.push(topic: "com.example.refused"), credential: refused,
                                                environment: .production)
        let second = try await setup.client.send(Self.push(topic: "com.example.sandboxonly"), credential: wrongEnvironment,
                                                 environment: .production)
        let third = try await setup.client.send(Self.push(topic: "com.example.fine"), credential: fine, environment: .production)
        await setup.stop()
        #expect(first.status == 403)
        #expect(first.reason == .badCertificate)
        #expect(second.status == 403)
        #expect(second.reason == .badCertificateEnvironment)
        #expect(third.status == 200)
        #expect(setup.simulator.accepted().map(\.authentication) == [.certificate(uid: "com.example.fine")])
    }

    @Test func twoTeamsKeysAndTwoCertificatesNeverShareAConnection() async throws {
        let keyA = try Self.key()
        let keyB = try Self.key()
        // Two connections per credential, over two loops: sharing would show as a connection
        // carrying two authentications.
        let setup = try await Setup.make(keys: ["KEYAAAAAAA": keyA, "KEYBBBBBBB": keyB], connections: 2)
        let credentials: [(APNSCredential, String)] = [
            (APNSCredential(keyID: "KEYAAAAAAA", teamID: "TEAMAAAAAA", signingKey: keyA), "com.example.a"),
            (APNSCredential(keyID: "KEYBBBBBBB", teamID: "TEAMBBBBBB", signingKey: keyB), "com.example.b"),
            (try await setup.certificate(bundleID: "com.example.c"), "com.example.c"),
            (try await setup.certificate(bundleID: "com.example.d"), "com.example.d"),
        ]
        // Interleaved, at once: every credential's pool busy alongside the others'.
        await withTaskGroup(of: Void.self) { group in
            for round in 0..<5 {
                for (index, (credential, topic)) in credentials.enumerated() {
                    group.addTask {
                        let pushes = (0..<20).map { number in
                            Self.push(topic: topic, token: String(format: "%02x", index) + String(format: "%062x", round * 100 + number))
                        }
                        let results = await setup.client.send(pushes, credential: credential, environment: .production)
                        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
                    }
                }
            }
        }
        await setup.stop()

        let pushes = setup.simulator.accepted()
        #expect(pushes.count == 4 * 5 * 20)
        let byConnection = Dictionary(grouping: pushes, by: \.connectionID).mapValues { Set($0.map(\.authentication)) }
        #expect(byConnection.values.allSatisfy { $0.count == 1 }, "a connection carried two credentials: \(byConnection)")
        let authentications = Set(byConnection.values.flatMap { $0 })
        #expect(authentications == [
            .providerToken(keyID: "KEYAAAAAAA", teamID: "TEAMAAAAAA"), .providerToken(keyID: "KEYBBBBBBB", teamID: "TEAMBBBBBB"),
            .certificate(uid: "com.example.c"), .certificate(uid: "com.example.d"),
        ])
    }

    @Test func anUntrustedCertificateIsRefusedAtTheHandshake() async throws {
        let setup = try await Setup.make()
        let issued = try await setup.certificates.issue(bundleID: "com.example.self", selfSigned: true)
        let credential = APNSCredential.certificate(try APNSClientCertificate(pem: issued.certificatePEM + "\n" + issued.keyPEM))
        let error = await #expect(throws: APNSTransportError.self) {
            try await setup.client.send(Self.push(topic: "com.example.self"), credential: credential, environment: .production)
        }
        await setup.stop()
        #expect(error?.kind == .connectFailed || error?.kind == .connectionLost, "\(String(describing: error))")
        #expect(setup.simulator.accepted().isEmpty)
    }

    @Test func aCertificateOnACleartextEndpointIsAnErrorSayingSo() async throws {
        let certificates = try await TestCertificates.make()
        let issued = try await certificates.issue(bundleID: "com.example.cert")
        let credential = APNSCredential.certificate(try APNSClientCertificate(pem: issued.certificatePEM + "\n" + issued.keyPEM))
        let client = try APNSClient(configuration: APNSClientConfiguration(
            productionURL: "http://127.0.0.1:1", sandboxURL: "http://127.0.0.1:1"))
        let error = await #expect(throws: APNSTransportError.self) {
            try await client.send(Self.push(topic: "com.example.cert"), credential: credential, environment: .production)
        }
        await client.shutdown()
        #expect(error?.message.contains("certificate credential needs an https:// APNs endpoint") == true)
    }

    @Test func theCertificatesPEMMustHoldAMatchingKey() async throws {
        let certificates = try await TestCertificates.make()
        let one = try await certificates.issue(bundleID: "com.example.one")
        let two = try await certificates.issue(bundleID: "com.example.two")
        #expect(throws: CryptoError.self) { try APNSClientCertificate(pem: one.certificatePEM) }
        #expect(throws: CryptoError.self) { try APNSClientCertificate(pem: one.certificatePEM + "\n" + two.keyPEM) }
        let parsed = try APNSClientCertificate(pem: one.certificatePEM + "\n" + one.keyPEM)
        #expect(parsed == (try APNSClientCertificate(pem: one.certificatePEM + "\n" + one.keyPEM)))
        #expect(parsed != (try APNSClientCertificate(pem: two.certificatePEM + "\n" + two.keyPEM)))
    }
}

/// `LocalCertificateAuthority` (what `openpush dev --certificate-app` uses) makes certificates
/// the simulator verifies and reads as Apple's: the UID and the topics extension.
@Suite struct LocalCertificateAuthorityTests {
    @Test func itsCertificatesAreVerifiedAndTheirTopicsRead() async throws {
        signal(SIGPIPE, SIG_IGN)
        let authority = try LocalCertificateAuthority.generate()
        let directory = try TemporaryDirectory.make(prefix: "openpush-local-ca")
        let caPath = directory + "/ca.pem"
        try Data(authority.certificatePEM.utf8).write(to: URL(fileURLWithPath: caPath))
        let simulator = try APNSSimulator(.init(transport: .tls(certificatePath: directory + "/simulator.pem"), clientCAPath: caPath))
        try simulator.start()
        let client = try APNSClient(configuration: APNSClientConfiguration(
            productionURL: simulator.endpoint, sandboxURL: simulator.endpoint, caFile: directory + "/simulator.pem"))
        let issued = try authority.issue(bundleID: "com.example.local", topics: ["com.example.local", "com.example.local.voip"])
        let credential = APNSCredential.certificate(try APNSClientCertificate(pem: issued.certificatePEM + "\n" + issued.privateKeyPEM))

        let alert = try await client.send(APNSCertificateTransportTests.push(topic: "com.example.local"), credential: credential,
                                          environment: .sandbox)
        let voip = try await client.send(APNSCertificateTransportTests.push(topic: "com.example.local.voip", type: .voip),
                                         credential: credential, environment: .sandbox)
        let complication = try await client.send(
            APNSCertificateTransportTests.push(topic: "com.example.local.complication", type: .complication),
            credential: credential, environment: .sandbox)
        await client.shutdown()
        simulator.stop()
        #expect(alert.status == 200)
        #expect(voip.status == 200)
        #expect(complication.reason == .topicDisallowed)
        #expect(simulator.accepted().map(\.authentication) == [.certificate(uid: "com.example.local"), .certificate(uid: "com.example.local")])
    }
}
