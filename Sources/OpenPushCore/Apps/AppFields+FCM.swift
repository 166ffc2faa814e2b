extension AppFields {
    /// `fcm_service_account`: the key file's JSON text as a string; `null` removes it. A bad one
    /// is one problem naming what is wrong with it.
    static func readFCMServiceAccount(_ reader: inout FieldReader,
                                      checkKey: (String) -> FCMServiceAccount.KeyCheck) -> FieldChange<FCMServiceAccount> {
        let key = "fcm_service_account"
        return reader.change(key) { reader in
            guard let text = reader.string(key) else { return nil }
            do throws(FCMServiceAccountProblem) {
                return try FCMServiceAccount.parse(text, checkKey: checkKey)
            } catch {
                reader.problem(error.message)
                return nil
            }
        }
    }
}
