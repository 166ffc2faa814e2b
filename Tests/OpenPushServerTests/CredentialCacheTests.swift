import Testing
import APNs
import Crypto
import OpenPushCore
@testable import OpenPushServer
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
}
