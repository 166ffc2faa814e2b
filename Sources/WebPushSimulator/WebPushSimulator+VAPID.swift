import Crypto
import OpenPushCore

extension WebPushSimulator {
    /// Why an `Authorization` header does not authenticate: `401` as the services answer it.
    struct VAPIDProblem: Error {
        var message: String
        var status: Int { 401 }
    }

    /// The most verified headers kept; past it the cache starts over.
    static let verifiedVAPIDLimit = 1024

    /// `readVAPID`, with a header that verified before answered from `verifiedVAPID`.
    func readVAPIDOnce(_ header: String?) -> Result<VAPIDClaims, VAPIDProblem> {
        guard let header else { return Self.readVAPID(nil) }
        if let known = verifiedVAPID.withLock({ $0[header] }) { return .success(known) }
        let read = Self.readVAPID(header)
        if case .success(let claims) = read {
            verifiedVAPID.withLock { verified in
                if verified.count >= Self.verifiedVAPIDLimit { verified.removeAll(keepingCapacity: true) }
                verified[header] = claims
            }
        }
        return read
    }

    /// RFC 8292 §3: `vapid t=<JWT>, k=<public key>`; the JWT is ES256 over `header.claims`,
    /// verified against `k`.
    static func readVAPID(_ header: String?) -> Result<VAPIDClaims, VAPIDProblem> {
        guard let header, !header.isEmpty else { return .failure(VAPIDProblem(message: "no Authorization header")) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "vapid" else {
            return .failure(VAPIDProblem(message: "the Authorization scheme is not vapid"))
        }
        var parameters: [String: Substring] = [:]
        for item in parts[1].split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            parameters[trimmed(pair[0]).lowercased()] = trimmed(pair[1])
        }
        guard let token = parameters["t"], let key = parameters["k"] else {
            return .failure(VAPIDProblem(message: "the vapid Authorization needs t= and k="))
        }
        guard let publicKey = Base64URL.decode(key), P256KeyPair.isValidPublicKey(publicKey) else {
            return .failure(VAPIDProblem(message: "k= is not a base64url P-256 public key"))
        }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let headerBytes = Base64URL.decode(segments[0]), let claimBytes = Base64URL.decode(segments[1]),
              let signature = Base64URL.decode(segments[2]),
              let jose = (try? JSONValue.parse(headerBytes))?.objectValue,
              let claims = (try? JSONValue.parse(claimBytes))?.objectValue else {
            return .failure(VAPIDProblem(message: "t= is not a JWT"))
        }
        guard jose["alg"]?.stringValue == "ES256" else { return .failure(VAPIDProblem(message: "the JWT's alg is not ES256")) }
        if let type = jose["typ"], type.stringValue?.uppercased() != "JWT" {
            return .failure(VAPIDProblem(message: "the JWT's typ is not JWT"))
        }
        let signed = Array(segments[0].utf8) + [UInt8(ascii: ".")] + Array(segments[1].utf8)
        guard P256KeyPair.isValidES256Signature(signature, for: signed, publicKey: publicKey) else {
            return .failure(VAPIDProblem(message: "the JWT's signature does not verify against k="))
        }
        return .success(VAPIDClaims(audience: claims["aud"]?.stringValue, expiresAt: claims["exp"]?.intValue.map { Int($0) },
                                    subject: claims["sub"]?.stringValue, publicKey: String(key)))
    }
}

private func trimmed(_ text: Substring) -> Substring {
    var text = text
    while text.first == " " || text.first == "\t" { text = text.dropFirst() }
    while text.last == " " || text.last == "\t" { text = text.dropLast() }
    return text
}
