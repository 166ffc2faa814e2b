import APNs
import Crypto
import Foundation
import OpenPushDelivery
import OpenPushCore
import Postgres

/// The APNs side of the channel routes: an app's credential and bundle id read from its row.
/// Requests go through the process's one APNs client (`Services.apns`).
enum ChannelAPNs {
    struct AppCredential {
        var bundleID: String
        var credential: APNSCredential
    }

    /// The app's bundle id and credential — its `.p8` key, or its certificate when the app
    /// authenticates with one — opened with `keyring` when sealed, or a `400` saying what is
    /// missing; a secret that does not open is a `503` naming the key it needs.
    static func credential(appID: String, keyring: SecretKeyring, in database: PostgresPool) async throws -> AppCredential {
        let row = try await database.query("""
            SELECT apns_bundle_id, apns_p8, apns_key_id, apns_team_id,
                   CASE WHEN apns_auth = 'certificate' THEN apns_certificate END AS apns_certificate
            FROM apps WHERE id = \(appID)
            """).first
        guard let row, let bundleID: String = try row.decode("apns_bundle_id"), !bundleID.isEmpty else {
            throw APIError.badRequest(ChannelMessages.noCredentials)
        }
        if let sealed: String = try row.decode("apns_certificate") {
            let pem: String
            do {
                pem = try keyring.open(sealed)
            } catch {
                throw APIError(status: 503, "the app's APNs certificate is \(error)")
            }
            guard let certificate = try? APNSClientCertificate(pem: pem) else {
                throw APIError.badRequest(ChannelMessages.noCredentials)
            }
            return AppCredential(bundleID: bundleID, credential: .certificate(certificate))
        }
        guard let stored: String = try row.decode("apns_p8"), let keyID: String = try row.decode("apns_key_id"),
              let teamID: String = try row.decode("apns_team_id")
        else { throw APIError.badRequest(ChannelMessages.noCredentials) }
        let p8: String
        do {
            p8 = try keyring.open(stored)
        } catch {
            throw APIError(status: 503, "the app's .p8 key is \(error)")
        }
        guard let key = try? P256SigningKey(pem: p8) else { throw APIError.badRequest(ChannelMessages.noCredentials) }
        return AppCredential(bundleID: bundleID, credential: APNSCredential(keyID: keyID, teamID: teamID, signingKey: key))
    }

    static func requestID() -> String { UUID().uuidString.lowercased() }
}

/// The channel routes' messages.
enum ChannelMessages {
    static let noCredentials = "the app has no APNs credentials (bundle id and .p8 key) to manage channels with"
    static func unknownChannel(_ id: String) -> String { "unknown channel '\(id)'" }
    static func nameTaken(_ name: String) -> String { "a channel named '\(name)' already exists in this app" }
    static func apnsRefused(_ status: Int, _ reason: String?) -> String {
        "APNs refused the channel request: \(status) \(reason ?? "(no reason)")"
    }
    static func apnsUnreachable(_ detail: String) -> String { "APNs could not be reached for the channel request: \(detail)" }
    static let nameQuery = "name is required: the channel's name"
    static func unknownChannelName(_ name: String) -> String { "no channel named '\(name)'" }
}
