import HTTPServer
import OpenPushCore
import OpenPushDelivery

extension HTTPRequest {
    /// Path parameters, query arguments and header values holding a NUL, each named. libpq would
    /// end the text at the NUL, so `app_x%00y` would be looked up as `app_x`; and no valid value
    /// of any of them holds one (RFC 9110 forbids it in header values).
    var nulProblems: [String] {
        var found: [String] = []
        for (name, value) in pathParameters.sorted(by: { $0.key < $1.key }) where NULCharacters.contains(value) {
            found.append(NULCharacters.message(name))
        }
        for (name, value) in query.sorted(by: { $0.key < $1.key }) where NULCharacters.contains(value) {
            found.append(NULCharacters.message(name))
        }
        for (name, value) in headers where NULCharacters.contains(value) {
            found.append(NULCharacters.message(name))
        }
        return found
    }
}
