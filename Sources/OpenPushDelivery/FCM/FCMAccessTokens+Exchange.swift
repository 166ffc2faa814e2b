import Crypto
package import HTTPClient
import OpenPushCore

extension FCMAccessTokens {
    /// The signed assertion (RFC 7523): header `RS256`/`JWT`/`kid`, claims `iss`, `scope`, `aud`
    /// (the token URL used), `iat` and `exp` one hour later.
    static func assertion(for account: FCMServiceAccount, audience: String, now: Double) throws(FCMAccessTokenError) -> String {
        let key: RSASigningKey
        do throws(RSASigningKey.Problem) {
            key = try RSASigningKey(pem: account.privateKey)
        } catch {
            throw .refused(error == .notRSA ? "private_key is not an RSA key" : "private_key does not parse")
        }
        let issuedAt = Int64(now.rounded(.down))
        let header: JSONObject = ["alg": "RS256", "typ": "JWT", "kid": .string(account.privateKeyID)]
        let claims: JSONObject = [
            "iss": .string(account.clientEmail),
            "scope": .string(scope),
            "aud": .string(audience),
            "iat": .int(issuedAt),
            "exp": .int(issuedAt + assertionLifetime),
        ]
        let signingInput = Base64URL.encode(JSONValue.object(header).serializedBytes) + "."
            + Base64URL.encode(JSONValue.object(claims).serializedBytes)
        do {
            return signingInput + "." + Base64URL.encode(try key.signRS256(Array(signingInput.utf8)))
        } catch {
            throw .unavailable("signing the assertion: \(error)")
        }
    }

    /// One exchange at the token endpoint.
    static func fetch(_ account: FCMServiceAccount, tokenURL: String, client: HTTPClient,
                      now: Double) async throws(FCMAccessTokenError) -> FCMAccessToken {
        let jwt = try assertion(for: account, audience: tokenURL, now: now)
        // The assertion is base64url and dots: nothing in it needs escaping in a form.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + jwt
        let response: HTTPClientResponse
        do {
            response = try await client.send(HTTPClientRequest(
                url: tokenURL, method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(form.utf8), timeout: .seconds(30)))
        } catch {
            throw .unavailable("\(error)")
        }
        return try token(from: response, now: now)
    }

    /// Reads the endpoint's answer: `200` with `access_token` and `expires_in`, or an OAuth error.
    package static func token(from response: HTTPClientResponse, now: Double) throws(FCMAccessTokenError) -> FCMAccessToken {
        let body = (try? JSONValue.parse(response.body))?.objectValue
        guard response.status == 200 else {
            let error = body?["error"]?.stringValue
            let description = body?["error_description"]?.stringValue
            let reason = [error, description].compactMap { $0 }.joined(separator: ": ")
            let named = "HTTP \(response.status)" + (reason.isEmpty ? "" : " \(reason)")
            // invalid_grant: a bad signature, a deleted or disabled key, a wrong email. 401/403: the
            // client itself is refused. Neither heals by retrying.
            if response.status == 401 || response.status == 403 || error == "invalid_grant" || error == "invalid_client"
                || error == "unauthorized_client" {
                throw .refused(named)
            }
            throw .unavailable(named)
        }
        guard let value = body?["access_token"]?.stringValue, !value.isEmpty, HeaderText.isVisibleASCII(value),
              let lifetime = body?["expires_in"]?.doubleValue, lifetime > 0 else {
            throw .unavailable("the token endpoint's answer has no access_token and expires_in")
        }
        let margin = min(refreshMargin, lifetime / 2)
        return FCMAccessToken(value: value, expiresAt: now + lifetime, refreshAt: now + lifetime - margin)
    }
}
