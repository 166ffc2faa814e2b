/// One CSV record (RFC 4180): fields joined by commas, a field quoted when it holds a comma, a
/// quote, a line break or leading/trailing space, its quotes doubled; lines end in CRLF, as
/// spreadsheet tools expect.
package enum CSVLine {
    package static func encode(_ fields: [String]) -> String {
        fields.map(quoted).joined(separator: ",") + "\r\n"
    }

    static func quoted(_ field: String) -> String {
        let needsQuotes = field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || field.first == " " || field.last == " "
        guard needsQuotes else { return field }
        return "\"" + field.replacingAll("\"", with: "\"\"") + "\""
    }
}

extension String {
    /// `replacingOccurrences` without Foundation.
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
