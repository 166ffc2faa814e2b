import Testing
import OpenPushCore

@Suite struct CertificateExpiryTests {
    static let expiresAt = 2_000_000_000.0
    static let day = 86_400.0

    @Test func theStageFollowsTheClock() {
        #expect(CertificateExpiry.stage(expiresAt: Self.expiresAt, now: Self.expiresAt - 31 * Self.day) == .valid)
        #expect(CertificateExpiry.stage(expiresAt: Self.expiresAt, now: Self.expiresAt - 30 * Self.day) == .expiring)
        #expect(CertificateExpiry.stage(expiresAt: Self.expiresAt, now: Self.expiresAt - 1) == .expiring)
        #expect(CertificateExpiry.stage(expiresAt: Self.expiresAt, now: Self.expiresAt) == .expired)
    }

    @Test func warnsOncePausesOnce() {
        func actions(_ daysLeft: Double, warned: Bool, paused: Bool = false) -> CertificateExpiry.Actions {
            CertificateExpiry.actions(expiresAt: Self.expiresAt, warned: warned, pausedForExpiry: paused,
                                      now: Self.expiresAt - daysLeft * Self.day)
        }
        #expect(actions(45, warned: false) == .init())
        #expect(actions(29, warned: false) == .init(warn: true))
        #expect(actions(29, warned: true) == .init())
        #expect(actions(-1, warned: true) == .init(pause: true))
        #expect(actions(-1, warned: true, paused: true) == .init())
        // Checks that stopped for the whole window still warn before pausing.
        #expect(actions(-1, warned: false) == .init(warn: true, pause: true))
    }

    @Test func anExpiryPauseIsLiftedByANewCredentialOnly() {
        #expect(CredentialPause.isLifted(reason: CertificateExpiry.pauseReason, changed: [.certificate]))
        #expect(CredentialPause.isLifted(reason: CertificateExpiry.pauseReason, changed: [.p8]))
        #expect(!CredentialPause.isLifted(reason: CertificateExpiry.pauseReason, changed: [.bundleID, .environment]))
        #expect(CredentialPause.isLifted(reason: "BadCertificate", changed: [.certificate]))
        #expect(CredentialPause.isLifted(reason: "BadCertificateEnvironment", changed: [.certificate]))
    }
}
