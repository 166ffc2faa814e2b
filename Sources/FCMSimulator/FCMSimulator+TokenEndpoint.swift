import Crypto
import Foundation
import OpenPushCore

extension FCMSimulator {
    static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// `POST /token` with a form body (`grant_type`, `assertion`): Google's OAuth 2.0 JWT
    /// bearer exchange. `200 {"access_token", "expires_in", "token_type": "Bearer"}`, or
    /// `400 {"error", "error_description"}` as Google words them.
    package func exchangeToken(formBody: [UInt8]) -> ControlResponse {
        let now = configuration.now()
        state.withLock { $0.counters.tokenRequests += 1 }
        let form = Self.parseForm(formBody)
        guard form["grant_type"] == Self.jwtBearerGrant else {
            return Self.oauthError("unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return Self.oauthError("invalid_request", "Missing required parameter: assertion")
        }
        let account: Account
        switch verify(assertion: assertion, now: now) {
        case .failure(let refusal): return Self.oauthError(refusal.error, refusal.description)
        case .success(let verified): account = verified
        }
        let accessToken = "ya29.fcmsim." + SecureRandom.bytes(24).hexString
        let lifetime = configuration.accessTokenLifetime
        state.withLock { state in
            state.accessTokens[accessToken] = IssuedToken(
                clientEmail: account.serviceAccount.clientEmail, projectID: account.serviceAccount.projectID,
                expiresAt: now.addingTimeInterval(TimeInterval(lifetime)))
            state.counters.accessTokensIssued += 1
        }
        return ControlResponse(status: 200, body: [
            "access_token": .string(accessToken), "expires_in": .int(Int64(lifetime)), "token_type": "Bearer",
        ])
    }

    struct AssertionRefusal: Error {
        var error = "invalid_grant"
        var description: String
    }

    /// The account whose key signed `assertion`, once its claims check out.
    private func verify(assertion: String, now: Date) -> Result<Account, AssertionRefusal> {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]), let claimsBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = (try? JSONValue.parse(headerBytes))?.objectValue,
              let claims = (try? JSONValue.parse(claimsBytes))?.objectValue else {
            return .failure(AssertionRefusal(description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."))
        }
        guard header["alg"]?.stringValue == "RS256" else {
            return .failure(AssertionRefusal(description: "Invalid JWT: the algorithm must be RS256"))
        }
        guard let issuer = claims["iss"]?.stringValue, let account = accounts[issuer] else {
            return .failure(AssertionRefusal(error: "invalid_client", description: "The OAuth client was not found."))
        }
        if let keyID = header["kid"]?.stringValue, keyID != account.serviceAccount.privateKeyID {
            return .failure(AssertionRefusal(description: "Invalid JWT Signature."))
        }
        let signed = Array(assertion.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard account.verifier.isValidRS256Signature(signature, for: signed) else {
            return .failure(AssertionRefusal(description: "Invalid JWT Signature."))
        }
        guard claims["aud"]?.stringValue.map(acceptsAudience) == true else {
            return .failure(AssertionRefusal(description: "Invalid JWT: the audience (aud) must be \(tokenURL)"))
        }
        let scopes = (claims["scope"]?.stringValue ?? "").split(separator: " ")
        guard scopes.contains(Substring(Self.messagingScope)) else {
            return .failure(AssertionRefusal(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided."))
        }
        let nowSeconds = Int64(now.timeIntervalSince1970)
        guard let issuedAt = claims["iat"]?.intValue, let expiresAt = claims["exp"]?.intValue,
              expiresAt > issuedAt, expiresAt - issuedAt <= 3600,
              issuedAt <= nowSeconds + 300, expiresAt > nowSeconds else {
            return .failure(AssertionRefusal(description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."))
        }
        return .success(account)
    }

    /// The token URL as configured, with a loopback host also spelt `localhost`.
    private func acceptsAudience(_ audience: String) -> Bool {
        let url = tokenURL
        return audience == url || audience == url.replacingOccurrences(of: "//127.0.0.1:", with: "//localhost:")
    }

    /// `application/x-www-form-urlencoded`: `+` is a space, `%XX` a byte.
    static func parseForm(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            fields[decodeFormComponent(parts[0])] = parts.count == 2 ? decodeFormComponent(parts[1]) : ""
        }
        return fields
    }

    /// `%XX` decoding; `+` is a space in a form, itself in a path.
    static func decodeFormComponent(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool = true) -> String {
        var output: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if plusIsSpace, byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                      let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                output.append(value)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func oauthError(_ error: String, _ description: String) -> ControlResponse {
        ControlResponse(status: 400, body: ["error": .string(error), "error_description": .string(description)])
    }
}
