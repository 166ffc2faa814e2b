/// Certificate (`.p12`) authentication: `apns_p12` (the file as base64) and `apns_p12_password`.
/// An app authenticates to APNs one way at a time, so a body that sets a certificate and a `.p8`
/// key (or the key's id or team) together is refused; setting one clears the other (the stores).
extension AppFields {
    /// What the adapter makes of `apns_p12`: the base64 text and the password in, the parsed file out.
    package typealias CertificateReader = (_ base64: String, _ password: String) -> Result<APNSCertificateUpload, APNSCertificateProblem>

    /// Base64 grows a file by a third; Apple's certificates with their keys are a few kilobytes.
    package static let certificateMaxLength = 65_536

    static func readP12(_ reader: inout FieldReader, parse: CertificateReader) -> FieldChange<APNSCertificateUpload> {
        var password = ""
        if reader.has("apns_p12_password") {
            switch reader.value("apns_p12_password") {
            case .string(let text)?: password = text
            case .null?: break
            default: reader.problem("apns_p12_password must be a string")
            }
        }
        let change = reader.change("apns_p12") { reader -> APNSCertificateUpload? in
            guard let text = reader.string("apns_p12", maxLength: certificateMaxLength) else { return nil }
            switch parse(text, password) {
            case .success(let upload):
                return upload
            case .failure(let problem):
                reader.problem(problem.message)
                return nil
            }
        }
        if reader.has("apns_p12_password"), reader.object["apns_p12"] == nil || reader.object["apns_p12"] == JSONValue.null {
            reader.problem("apns_p12_password is only read together with apns_p12")
        }
        return change
    }

    /// The methods' fields given together: each is one problem.
    static func certificateConflicts(_ object: JSONObject) -> [String] {
        guard let p12 = object["apns_p12"], p12 != .null else { return [] }
        return ["apns_p8", "apns_key_id", "apns_team_id"].filter { object[$0] != nil && object[$0] != JSONValue.null }.map {
            "\($0) cannot be given with apns_p12: an app authenticates to APNs with a .p8 key or a certificate, not both"
        }
    }

    /// Checks a new certificate against the clock and the bundle id the app will have (`current`:
    /// the one it has now, nil on creation), and a new bundle id against the certificate the app
    /// keeps (`currentTopics`). An app without any bundle id takes the certificate's UID as its
    /// bundle id.
    package mutating func settleCertificate(currentBundleID: String?, currentTopics: [String]?, now: Double) throws(InvalidInput) {
        let bundleID: String?
        switch apnsBundleID {
        case .keep: bundleID = currentBundleID
        case .clear: bundleID = nil
        case .set(let id): bundleID = id
        }
        var problems: [APNSCertificateProblem] = []
        if case .set(let upload) = apnsCertificate {
            if now >= upload.expiresAt { problems.append(.expired(at: upload.expiresAt)) }
            if let bundleID {
                if !upload.topics.contains(bundleID) { problems.append(.topicMissing(bundleID: bundleID, topics: upload.topics)) }
            } else if let uid = upload.subjectUID, HeaderText.isVisibleASCII(uid), uid.count <= Self.textMaxLength {
                apnsBundleID = .set(uid)
            } else {
                problems.append(.noBundleID)
            }
        } else if apnsCertificate.isKeep, apnsP8.newValue == nil, case .set(let id) = apnsBundleID,
                  let currentTopics, !currentTopics.contains(id) {
            // The certificate the app keeps must cover its new bundle id too.
            problems.append(.topicMissing(bundleID: id, topics: currentTopics))
        }
        guard problems.isEmpty else { throw InvalidInput(problems.map(\.message)) }
    }
}
