/// An APNs provider certificate given as `apns_p12`, as the adapter read it from the file: what
/// is stored sealed (the certificate's PEM, a newline, its private key's unencrypted PKCS#8 PEM)
/// and what the app views show in clear beside it.
package struct APNSCertificateUpload: Sendable, Equatable {
    package var credentialPEM: String
    /// The certificate's notAfter, Unix seconds.
    package var expiresAt: Double
    /// The subject's UID, where Apple writes the bundle id.
    package var subjectUID: String?
    /// The topics it may push to: the UID, then those of Apple's topics extension, without repeats.
    package var topics: [String]

    package init(certificatePEM: String, privateKeyPEM: String, expiresAt: Double, subjectUID: String?,
                 extensionTopics: [String]) {
        credentialPEM = certificatePEM + "\n" + privateKeyPEM
        self.expiresAt = expiresAt
        self.subjectUID = subjectUID
        var topics: [String] = []
        for topic in (subjectUID.map { [$0] } ?? []) + extensionTopics where !topics.contains(topic) {
            topics.append(topic)
        }
        self.topics = topics
    }
}

/// Why an `apns_p12` was refused; each is one `400` message naming the field.
package enum APNSCertificateProblem: Error, Sendable, Equatable {
    case notBase64
    case notPKCS12
    case wrongPassword
    case noCertificate
    case noPrivateKey
    /// PKCS#12 that opened with the password but not further (OpenSSL's reason).
    case unreadable(String)
    case expired(at: Double)
    case topicMissing(bundleID: String, topics: [String])
    /// No bundle id on the app or in the request, and none in the certificate to take.
    case noBundleID

    package var message: String {
        switch self {
        case .notBase64:
            return "apns_p12 must be the .p12 file encoded as base64"
        case .notPKCS12:
            return "apns_p12 is not a PKCS#12 (.p12) file"
        case .wrongPassword:
            return "apns_p12_password does not open apns_p12 (wrong password)"
        case .noCertificate:
            return "apns_p12 holds no certificate: export the certificate together with its private key"
        case .noPrivateKey:
            return "apns_p12 holds no private key for its certificate: export the certificate together with its private key"
        case .unreadable(let reason):
            return "apns_p12 could not be read: \(reason)"
        case .expired(let at):
            return "apns_p12's certificate expired at \(Timestamp.iso8601(at))"
        case .topicMissing(let bundleID, let topics):
            let named = topics.isEmpty ? "none" : topics.joined(separator: ", ")
            return "apns_p12's certificate is not valid for apns_bundle_id '\(bundleID)' (its topics: \(named))"
        case .noBundleID:
            return "apns_p12's certificate names no bundle id (no UID in its subject): set apns_bundle_id"
        }
    }
}
