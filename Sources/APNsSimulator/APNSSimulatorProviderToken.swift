import Crypto
import Foundation
import OpenPushCore

/// A provider token (ES256 JWT) as the simulator reads it: `kid` from the header, `iss` and
/// `iat` from the claims, and the signature with the bytes it covers.
struct APNSSimulatorProviderToken: Equatable {
    var keyID: String
    var teamID: String
    var issuedAt: Date
    /// `base64url(header) "." base64url(claims)`: what the signature covers.
    var signingInput: [UInt8]
    /// Raw `r‖s`.
    var signature: [UInt8]

    /// Parses `authorization: bearer <jwt>`; `nil` for anything malformed (Apple answers
    /// that with InvalidProviderToken).
    init?(authorization: String) {
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let segments = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerBytes = Base64URL.decode(segments[0]),
              let claimsBytes = Base64URL.decode(segments[1]),
              let signature = Base64URL.decode(segments[2]),
              let header = (try? JSONValue.parse(headerBytes))?.objectValue,
              let claims = (try? JSONValue.parse(claimsBytes))?.objectValue,
              header["alg"]?.stringValue == "ES256",
              let keyID = header["kid"]?.stringValue, !keyID.isEmpty,
              let teamID = claims["iss"]?.stringValue, !teamID.isEmpty,
              let issuedAt = claims["iat"]?.intValue
        else { return nil }
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = Date(timeIntervalSince1970: TimeInterval(issuedAt))
        self.signingInput = Array(segments[0].utf8) + [UInt8(ascii: ".")] + Array(segments[1].utf8)
        self.signature = signature
    }
}
