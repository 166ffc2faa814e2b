/// The parts of a Google service account key (the JSON file from the Firebase console) that
/// OpenPush needs to authenticate to FCM. Everything else in the file is dropped, `token_uri`
/// included: the token URL is a setting, so a tenant's file never chooses where OpenPush connects.
package struct FCMServiceAccount: Sendable, Equatable {
    /// What the caller's cryptography says about `private_key` (Core parses no PEM).
    package enum KeyCheck: Sendable {
        case rsa
        case notRSA
        case unparseable
    }

    /// A real key file is about 2.4 KB; a 4096-bit key's file about 3.5 KB.
    package static let maxJSONBytes = 16_384
    package static let requiredFields = ["type", "project_id", "private_key_id", "private_key", "client_email"]

    package var projectID: String
    package var privateKeyID: String
    /// PEM (PKCS#8 or PKCS#1) of an RSA private key.
    package var privateKey: String
    package var clientEmail: String

    package init(projectID: String, privateKeyID: String, privateKey: String, clientEmail: String) {
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.privateKey = privateKey
        self.clientEmail = clientEmail
    }

    /// Reads the key file's text; `checkKey` parses `private_key` (`Crypto`'s `RSASigningKey`).
    package static func parse(_ text: String,
                              checkKey: (String) -> KeyCheck) throws(FCMServiceAccountProblem) -> FCMServiceAccount {
        guard text.utf8.count <= maxJSONBytes else { throw .tooLarge }
        guard let object = (try? JSONValue.parse(text))?.objectValue else { throw .notJSONObject }
        var values: [String: String] = [:]
        for field in requiredFields {
            guard let value = object[field]?.stringValue, !value.allSatisfy({ $0.isWhitespace }) else {
                throw .missingField(field)
            }
            values[field] = value
        }
        guard values["type"] == "service_account" else { throw .notServiceAccount }
        let account = FCMServiceAccount(projectID: values["project_id"]!, privateKeyID: values["private_key_id"]!,
                                        privateKey: values["private_key"]!, clientEmail: values["client_email"]!)
        guard HeaderText.isVisibleASCII(account.projectID) else { throw .badProjectID }
        switch checkKey(account.privateKey) {
        case .rsa: return account
        case .notRSA: throw .keyNotRSA
        case .unparseable: throw .keyUnparseable
        }
    }

    /// The stored form: only the fields above, as a service account key file.
    package var json: String {
        let object: JSONObject = [
            "type": "service_account",
            "project_id": .string(projectID),
            "private_key_id": .string(privateKeyID),
            "private_key": .string(privateKey),
            "client_email": .string(clientEmail),
        ]
        return JSONValue.object(object).serialized
    }
}

/// Why a `fcm_service_account` was refused; `message` is the `400`'s text.
package enum FCMServiceAccountProblem: Error, Sendable, Equatable {
    case tooLarge
    case notJSONObject
    case missingField(String)
    case notServiceAccount
    case badProjectID
    case keyNotRSA
    case keyUnparseable

    package var message: String {
        let field = "fcm_service_account"
        switch self {
        case .tooLarge:
            return "\(field) must be at most \(FCMServiceAccount.maxJSONBytes) bytes (a service account key file is about 2.4 KB)"
        case .notJSONObject:
            return "\(field) must be the JSON text of a Google service account key (a JSON object)"
        case .missingField(let name):
            return "\(field) is missing \(name) (a non-empty string)"
        case .notServiceAccount:
            return "\(field) must have type \"service_account\""
        case .badProjectID:
            return "\(field) project_id must be printable ASCII without spaces: it is part of the FCM URL"
        case .keyNotRSA:
            return "\(field) private_key is not an RSA private key"
        case .keyUnparseable:
            return "\(field) private_key does not parse as a PEM private key"
        }
    }
}
