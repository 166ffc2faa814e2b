import Crypto
package import OpenPushCore
import OpenPushDelivery

extension AppFields {
    /// The one place an app's settings are checked, for `POST`/`PUT /apps` and for
    /// `openpush apps create` alike: the `.p8` must parse as an EC P-256 private key, and a
    /// service account's `private_key` as an RSA one.
    package static func read(_ object: JSONObject, for purpose: Purpose) throws(InvalidInput) -> AppFields {
        try read(object, for: purpose, isP256PrivateKey: { (try? P256SigningKey(pem: $0)) != nil },
                 checkRSAKey: { pem in
                     do throws(RSASigningKey.Problem) {
                         _ = try RSASigningKey(pem: pem)
                         return .rsa
                     } catch {
                         return error == .notRSA ? .notRSA : .unparseable
                     }
                 })
    }
}
