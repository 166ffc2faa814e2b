/// A database URL or libpq conninfo fit for a log line: the password replaced by `***`, in the
/// URL's user info (`postgres://user:pw@host`), a `password=` query parameter, or a
/// `password=…` keyword (bare or single-quoted). Everything else is kept, so the line still
/// says which server and database were used.
package enum RedactedConninfo {
    package static let mask = "***"

    package static func redact(_ conninfo: String) -> String {
        for scheme in ["postgres://", "postgresql://"] where conninfo.hasPrefix(scheme) {
            return redactURL(conninfo, afterScheme: conninfo.index(conninfo.startIndex, offsetBy: scheme.count))
        }
        return redactKeywords(conninfo)
    }

    /// `scheme://[user[:password]@]host…[?key=value&…]`; the user info ends at the last `@`
    /// before the query, so a password holding a raw `@` is still hidden whole.
    private static func redactURL(_ url: String, afterScheme start: String.Index) -> String {
        let queryStart = url[start...].firstIndex(of: "?") ?? url.endIndex
        var result = String(url[..<start])
        if let at = url[start..<queryStart].lastIndex(of: "@") {
            let userInfo = url[start..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                result += String(userInfo[..<colon]) + ":" + mask
            } else {
                result += String(userInfo)
            }
            result += String(url[at..<queryStart])
        } else {
            result += String(url[start..<queryStart])
        }
        guard queryStart < url.endIndex else { return result }
        let query = url[url.index(after: queryStart)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
            pair.lowercased().hasPrefix("password=") ? "password=" + mask : String(pair)
        }
        return result + "?" + query.joined(separator: "&")
    }

    /// `key = value` pairs separated by spaces; values may be single-quoted with `\\` escapes.
    private static func redactKeywords(_ conninfo: String) -> String {
        let characters = Array(conninfo)
        var result = ""
        var index = 0
        while index < characters.count {
            // Copy whitespace, then read one keyword.
            if characters[index].isWhitespace {
                result.append(characters[index])
                index += 1
                continue
            }
            var keyword = ""
            while index < characters.count, characters[index] != "=", !characters[index].isWhitespace {
                keyword.append(characters[index])
                index += 1
            }
            result += keyword
            while index < characters.count, characters[index].isWhitespace {
                result.append(characters[index])
                index += 1
            }
            guard index < characters.count, characters[index] == "=" else { continue }
            result.append("=")
            index += 1
            while index < characters.count, characters[index].isWhitespace {
                result.append(characters[index])
                index += 1
            }
            let valueStart = index
            if index < characters.count, characters[index] == "'" {
                index += 1
                while index < characters.count, characters[index] != "'" {
                    index += characters[index] == "\\" ? 2 : 1
                }
                index = min(index + 1, characters.count)
            } else {
                while index < characters.count, !characters[index].isWhitespace { index += 1 }
            }
            result += keyword.lowercased() == "password" ? mask : String(characters[valueStart..<index])
        }
        return result
    }
}
