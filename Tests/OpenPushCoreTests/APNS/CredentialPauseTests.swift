import Testing
import OpenPushCore

@Suite struct CredentialPauseTests {
    @Test(arguments: [
        ("MissingTopic", [CredentialPause.Field.bundleID], true),
        ("MissingTopic", [.watchBundleID], true),
        ("MissingTopic", [.p8, .keyID, .teamID, .environment], false),
        ("InvalidProviderToken", [.p8], true),
        ("InvalidProviderToken", [.keyID], true),
        ("InvalidProviderToken", [.teamID], true),
        ("InvalidProviderToken", [.bundleID, .environment], false),
        ("MissingProviderToken", [.p8], true),
        ("UnrelatedKeyIdInToken", [.keyID], true),
        ("BadCertificateEnvironment", [.environment], true),
        ("BadCertificateEnvironment", [.bundleID], false),
        ("Forbidden", [.environment], true),
        ("SomethingAppleAddsLater", [.watchBundleID], true),
    ])
    func aChangeLiftsAPauseOnlyWhenTheReasonDependsOnIt(reason: String, changed: [CredentialPause.Field], lifted: Bool) {
        #expect(CredentialPause.isLifted(reason: reason, changed: Set(changed)) == lifted)
    }

    @Test func nothingChangedLiftsNothing() {
        #expect(!CredentialPause.isLifted(reason: "MissingTopic", changed: []))
        #expect(!CredentialPause.isLifted(reason: nil, changed: []))
    }

    @Test func anUpdateNamesTheCredentialFieldsItTouches() {
        var fields = AppFields()
        fields.name = "renamed"
        #expect(fields.changedCredentialFields.isEmpty)
        fields.apnsBundleID = .set("com.example")
        fields.apnsWatchBundleID = .clear
        fields.apnsEnv = .production
        #expect(fields.changedCredentialFields == [.bundleID, .watchBundleID, .environment])
    }
}
