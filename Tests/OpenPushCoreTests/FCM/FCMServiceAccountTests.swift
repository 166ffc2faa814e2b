import Testing
import OpenPushCore

@Suite struct FCMServiceAccountTests {
    static let fields: JSONObject = [
        "type": "service_account", "project_id": "shop-12345", "private_key_id": "abc123",
        "private_key": "-----BEGIN PRIVATE KEY-----\nRSA\n-----END PRIVATE KEY-----\n",
        "client_email": "firebase-adminsdk@shop-12345.iam.gserviceaccount.com",
        "token_uri": "https://evil.example/token", "client_id": "1234",
    ]

    static func text(_ object: JSONObject) -> String { JSONValue.object(object).serialized }

    static func parse(_ text: String, key: FCMServiceAccount.KeyCheck = .rsa) throws(FCMServiceAccountProblem) -> FCMServiceAccount {
        try FCMServiceAccount.parse(text, checkKey: { _ in key })
    }

    @Test func keepsTheNeededFieldsOnly() throws {
        let account = try Self.parse(Self.text(Self.fields))
        #expect(account == FCMServiceAccount(projectID: "shop-12345", privateKeyID: "abc123",
                                             privateKey: "-----BEGIN PRIVATE KEY-----\nRSA\n-----END PRIVATE KEY-----\n",
                                             clientEmail: "firebase-adminsdk@shop-12345.iam.gserviceaccount.com"))
        // The stored form drops token_uri and reads back as the same account.
        #expect(!account.json.contains("token_uri") && !account.json.contains("evil"))
        #expect(try Self.parse(account.json) == account)
    }

    @Test func eachProblemIsNamed() {
        #expect(throws: FCMServiceAccountProblem.notJSONObject) { try Self.parse("{not json") }
        #expect(throws: FCMServiceAccountProblem.notJSONObject) { try Self.parse("[1, 2]") }
        for field in FCMServiceAccount.requiredFields {
            var missing = Self.fields
            missing[field] = nil
            #expect(throws: FCMServiceAccountProblem.missingField(field)) { try Self.parse(Self.text(missing)) }
            var number = Self.fields
            number[field] = 7
            #expect(throws: FCMServiceAccountProblem.missingField(field)) { try Self.parse(Self.text(number)) }
            var blank = Self.fields
            blank[field] = " "
            #expect(throws: FCMServiceAccountProblem.missingField(field)) { try Self.parse(Self.text(blank)) }
        }
        var user = Self.fields
        user["type"] = "authorized_user"
        #expect(throws: FCMServiceAccountProblem.notServiceAccount) { try Self.parse(Self.text(user)) }
        var path = Self.fields
        path["project_id"] = "shop/../x y"
        #expect(throws: FCMServiceAccountProblem.badProjectID) { try Self.parse(Self.text(path)) }
        #expect(throws: FCMServiceAccountProblem.keyNotRSA) { try Self.parse(Self.text(Self.fields), key: .notRSA) }
        #expect(throws: FCMServiceAccountProblem.keyUnparseable) { try Self.parse(Self.text(Self.fields), key: .unparseable) }
        var huge = Self.fields
        huge["padding"] = .string(String(repeating: "x", count: FCMServiceAccount.maxJSONBytes))
        #expect(throws: FCMServiceAccountProblem.tooLarge) { try Self.parse(Self.text(huge)) }
    }

    @Test func appFieldsReadItAsOneProblemOrAChange() throws {
        let good = try AppFields.read(["fcm_service_account": .string(Self.text(Self.fields))], for: .update,
                                      isP256PrivateKey: { _ in true }, checkRSAKey: { _ in .rsa })
        #expect(good.fcmServiceAccount.newValue?.projectID == "shop-12345")
        let cleared = try AppFields.read(["fcm_service_account": nil], for: .update, isP256PrivateKey: { _ in true })
        #expect(cleared.fcmServiceAccount == .clear)
        #expect(try AppFields.read([:], for: .update, isP256PrivateKey: { _ in true }).fcmServiceAccount == .keep)
        #expect(throws: InvalidInput([FCMServiceAccountProblem.keyNotRSA.message])) {
            try AppFields.read(["fcm_service_account": .string(Self.text(Self.fields))], for: .update,
                               isP256PrivateKey: { _ in true }, checkRSAKey: { _ in .notRSA })
        }
        #expect(throws: InvalidInput.self) {
            try AppFields.read(["fcm_service_account": ["type": "service_account"]], for: .create,
                               isP256PrivateKey: { _ in true }, checkRSAKey: { _ in .rsa })
        }
    }
}
