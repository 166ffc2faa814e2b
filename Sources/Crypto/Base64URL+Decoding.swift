import Foundation

extension Base64URL {
    /// Decodes base64url with or without padding; `nil` for any character outside the
    /// url-safe alphabet (so standard base64's `+` and `/` are refused, as JOSE requires).
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        var sawPadding = false
        for character in text.unicodeScalars {
            switch character {
            case "=":
                sawPadding = true
                continue
            case _ where sawPadding:
                return nil
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(character)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        while standard.utf8.count % 4 != 0 { standard.append("=") }
        guard let data = Data(base64Encoded: standard) else { return nil }
        return Array(data)
    }
}
