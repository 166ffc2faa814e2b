import Foundation

/// Base64url without padding (RFC 7515 §2), the encoding JWT segments use.
package enum Base64URL {
    package static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(text.map { character -> Character in
            switch character {
            case "+": "-"
            case "/": "_"
            default: character
            }
        })
    }
}
