package import Crypto

/// Token-auth credentials: the key id and team id shown in Apple's developer account and the
/// `.p8` signing key. Two are the same when all three agree, so replacing an app's key gets
/// fresh connections and a fresh token.
package struct APNSProviderKey: Sendable, Hashable {
    package var keyID: String
    package var teamID: String
    package var signingKey: P256SigningKey

    package init(keyID: String, teamID: String, signingKey: P256SigningKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.signingKey = signingKey
    }

    package static func == (lhs: APNSProviderKey, rhs: APNSProviderKey) -> Bool {
        lhs.keyID == rhs.keyID && lhs.teamID == rhs.teamID
            && lhs.signingKey.publicKeyDER == rhs.signingKey.publicKeyDER
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
        hasher.combine(teamID)
        hasher.combine(signingKey.publicKeyDER)
    }
}
