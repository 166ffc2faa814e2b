package import Crypto
import Foundation
package import OpenPushDelivery
import Postgres

extension DevDemoApp {
    /// The certificate demo app's bundle id: its certificate's UID and first topic.
    package static let certificateBundleID = "com.example.openpush.certdemo"
    package static let certificateFileName = "certificate_demo_app.json"

    /// `openpush dev --certificate-app`: a second demo app that authenticates with an APNs
    /// certificate instead of a `.p8`, stored as the app API stores one (sealed certificate and
    /// key PEMs, `apns_auth = 'certificate'`). The certificate is issued by `authority` — the CA
    /// this start's APNs simulator trusts, new each start — so the saved app takes a new one.
    package static func ensureCertificateApp(stateDirectory: String, services: Services,
                                             authority: LocalCertificateAuthority) async throws -> DevDemoApp {
        let path = stateDirectory + "/" + certificateFileName
        var demo: DevDemoApp
        if let saved = load(path), let current = try await stillPresent(saved, in: services.database) {
            demo = current
        } else {
            let created = try await AppStore.create(
                AppSettings(name: "Certificate demo app", apnsBundleID: certificateBundleID), now: services.now(),
                sealing: services.configuration.secretKeyring, in: services.database)
            demo = DevDemoApp(id: created.app.id, restKey: created.restKey, sdkKey: created.sdkKey, isNew: true)
            try save(demo, to: path)
        }
        let topics = [certificateBundleID, certificateBundleID + ".voip"]
        let validFor = 365 * 24 * 3600
        let issued = try authority.issue(bundleID: certificateBundleID, topics: topics, validFor: validFor)
        let sealed = services.configuration.secretKeyring.seal(issued.certificatePEM + "\n" + issued.privateKeyPEM)
        try await services.database.query("""
            UPDATE apps SET apns_auth = 'certificate', apns_certificate = \(sealed),
                            apns_certificate_expires_at = now() + make_interval(secs => \(Double(validFor))),
                            apns_certificate_topics = \(topics)::text[], apns_certificate_warned_at = NULL,
                            apns_p8 = NULL, apns_key_id = NULL, apns_team_id = NULL, updated_at = now()
            WHERE id = \(demo.id)
            """)
        return demo
    }
}
