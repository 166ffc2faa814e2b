import Crypto
import Foundation
package import OpenPushCore
import OpenPushDelivery

extension AppFields {
    /// The one place an app's settings are checked, for `POST`/`PUT /apps` and for
    /// `openpush apps create` alike: the `.p8` must parse as an EC P-256 private key, a
    /// service account's `private_key` as an RSA one, and `apns_p12` as a PKCS#12 file with
    /// its certificate and key, and `web_push_vapid_private_key` as a P-256 private key.
    package static func read(_ object: JSONObject, for purpose: Purpose) throws(InvalidInput) -> AppFields {
        try read(object, for: purpose, isP256PrivateKey: { (try? P256SigningKey(pem: $0)) != nil },
                 checkRSAKey: { pem in
                     do throws(RSASigningKey.Problem) {
                         _ = try RSASigningKey(pem: pem)
                         return .rsa
                     } catch {
                         return error == .notRSA ? .notRSA : .unparseable
                     }
                 },
                 readCertificate: readP12File, readVAPIDKey: WebPushKeyPair.imported)
    }

    /// `apns_p12`'s base64 (line breaks allowed, as `base64` writes them) opened with its password.
    package static func readP12File(_ base64: String, password: String) -> Result<APNSCertificateUpload, APNSCertificateProblem> {
        let compact = base64.filter { !$0.isWhitespace }
        guard !compact.isEmpty, let data = Data(base64Encoded: compact) else { return .failure(.notBase64) }
        do throws(PKCS12Identity.Problem) {
            let identity = try PKCS12Identity(der: Array(data), password: password)
            return .success(APNSCertificateUpload(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM,
                                                  expiresAt: Double(identity.notAfter), subjectUID: identity.subjectUID,
                                                  extensionTopics: identity.extensionTopics))
        } catch {
            switch error {
            case .notPKCS12: return .failure(.notPKCS12)
            case .wrongPassword: return .failure(.wrongPassword)
            case .noCertificate: return .failure(.noCertificate)
            case .noPrivateKey: return .failure(.noPrivateKey)
            case .unreadable(let reason): return .failure(.unreadable(reason))
            }
        }
    }
}
