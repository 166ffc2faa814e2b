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
