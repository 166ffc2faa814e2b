/// A signed provider token (JWT) and when it was issued, in unix seconds (its `iat`).
public struct APNSProviderToken: Sendable, Hashable {
    public var jwt: String
    public var issuedAt: Int64

    public init(jwt: String, issuedAt: Int64) {
        self.jwt = jwt
        self.issuedAt = issuedAt
    }
}
