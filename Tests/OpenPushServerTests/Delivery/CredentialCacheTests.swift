import Testing
import APNs
import Crypto
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Synchronization

/// A rotated key's connections are closed once no app uses the key any more.
@Suite struct CredentialCacheTests {
    static func app(_ id: String, pem: String, updatedAt: Double) -> DeliveryContext.App {
        DeliveryContext.App(id: id, bundleID: "com.example", p8: pem, keyID: "KEYID00001", teamID: "TEAM000001", updatedAt: updatedAt)
    }

    @Test func aKeyIsRetiredWhenTheLastAppUsingItMovesOn() throws {
        let retired = Mutex<[APNSCredential]>([])
        let cache = CredentialCache(retired: { credential in retired.withLock { $0.append(credential) } })
        let shared = try P256SigningKey.generatePEM(), fresh = try P256SigningKey.generatePEM()
        let old = try #require(cache.credential(for: Self.app("app_a", pem: shared, updatedAt: 1)))
        _ = cache.credential(for: Self.app("app_b", pem: shared, updatedAt: 1))
        // A unchanged: nothing parsed again, nothing retired.
        #expect(cache.credential(for: Self.app("app_a", pem: shared, updatedAt: 1)) == old)
        // A rotates its key; B still uses the old one.
        let new = try #require(cache.credential(for: Self.app("app_a", pem: fresh, updatedAt: 2)))
        #expect(new != old)
        #expect(retired.withLock { $0 }.isEmpty)
        // B rotates too: now nobody uses the old key.
        _ = cache.credential(for: Self.app("app_b", pem: fresh, updatedAt: 2))
        #expect(retired.withLock { $0 } == [old])
    }

    /// A certificate app's credential is its sealed certificate (no key id or team id needed),
    /// parsed once; a renewed certificate retires the old one's connections, and an app that
    /// still holds a `.p8` beside it authenticates with the certificate.
    @Test func aCertificateAppGetsItsCertificateAndARenewalRetiresTheOldOne() async throws {
        let retired = Mutex<[APNSCredential]>([])
        let sealingKey = try #require(SecretKeyring.parseKey(SecretKeyring.generateKeyText()))
        let keyring = SecretKeyring(current: sealingKey)
        let cache = CredentialCache(keyring: keyring, retired: { credential in retired.withLock { $0.append(credential) } })
        let certificates = try await TestCertificates.make()
        let first = try await certificates.issue(bundleID: "com.example")
        let renewed = try await certificates.issue(bundleID: "com.example")
        func app(_ issued: TestCertificates.Issued, updatedAt: Double) throws -> DeliveryContext.App {
            var app = DeliveryContext.App(id: "app_c", bundleID: "com.example", p8: try P256SigningKey.generatePEM(),
                                          keyID: "KEYID00001", teamID: "TEAM000001", updatedAt: updatedAt)
            app.certificate = keyring.seal(issued.certificatePEM + "\n" + issued.keyPEM)
            return app
        }
        let firstApp = try app(first, updatedAt: 1)
        let old = try #require(cache.credential(for: firstApp))
        #expect(old == .certificate(try APNSClientCertificate(pem: first.certificatePEM + "\n" + first.keyPEM)))
        #expect(old.providerKey == nil)
        #expect(cache.credential(for: firstApp) == old)
        let new = try #require(cache.credential(for: try app(renewed, updatedAt: 2)))
        #expect(new != old)
        #expect(retired.withLock { $0 } == [old])
        // One whose PEM does not parse has no credential: planning pauses it as BadCertificate.
        var broken = try app(first, updatedAt: 3)
        broken.certificate = keyring.seal("not a certificate")
        #expect(cache.credential(for: broken) == nil)
        #expect(CredentialCache.missingReason(for: broken) == "BadCertificate")
        #expect(CredentialCache.missingReason(for: Self.app("app_d", pem: "x", updatedAt: 1)) == "MissingProviderToken")
    }

    /// A sealed `.p8` opens into the same credential; one sealed with a key the cache does not
    /// have is an error naming that key, logged once per change of the app, never a crash.
    @Test func aSealedKeyOpensAndAnUnknownKeyIsNamed() throws {
        let pem = try P256SigningKey.generatePEM()
        let keyA = try #require(SecretKeyring.parseKey(SecretKeyring.generateKeyText()))
        let keyB = try #require(SecretKeyring.parseKey(SecretKeyring.generateKeyText()))
        let sealed = SecretKeyring(current: keyA).seal(pem)
        let opened = CredentialCache(keyring: SecretKeyring(current: keyB, old: [keyA]))
        let credential = try #require(try opened.lookup(for: Self.app("app_a", pem: sealed, updatedAt: 1)).get())
        #expect(credential.providerKey?.keyID == "KEYID00001")

        let logs = CapturingLogHandler()
        let missing = CredentialCache(keyring: SecretKeyring(current: keyB), logger: Logger(label: "test", level: .debug, handler: logs))
        for _ in 0..<3 {
            #expect(throws: SealedSecretError.unknownKey(keyA.id)) { try missing.lookup(for: Self.app("app_a", pem: sealed, updatedAt: 1)).get() }
        }
        #expect(missing.credential(for: Self.app("app_a", pem: sealed, updatedAt: 1)) == nil)
        #expect(logs.all.count == 1)
        #expect(logs.all.first?.metadata["secret.key_id"] == keyA.id)
        // Another app of the same cache, in clear, is not affected.
        #expect(missing.credential(for: Self.app("app_b", pem: pem, updatedAt: 1)) != nil)
        // Re-sealed with a key it has (`secrets rotate` leaves `updated_at` alone): opened again.
        let resealed = SecretKeyring(current: keyB).seal(pem)
        #expect(missing.credential(for: Self.app("app_a", pem: resealed, updatedAt: 1)) == credential)
    }
}
