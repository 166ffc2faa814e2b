/// A signed provider token (JWT) and when it was issued, in unix seconds (its `iat`).
package struct APNSProviderToken: Sendable, Hashable {
    package var jwt: String
    package var issuedAt: Int64

    package init(jwt: String, issuedAt: Int64) {
        self.jwt = jwt
        self.issuedAt = issuedAt
    }
}
