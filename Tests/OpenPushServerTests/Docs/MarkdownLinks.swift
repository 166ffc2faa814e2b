import Foundation

/// The parts of Markdown the link check needs: inline links outside code, and the anchors GitHub
/// gives headings.
enum MarkdownLinks {
    /// Link targets that are not URLs with a scheme, in order, from text outside code blocks and spans.
    static func relativeLinks(in text: String) -> [String] {
        var links: [String] = []
        for line in proseLines(of: text) {
            let chars = Array(stripCodeSpans(line))
            var index = 0
            while index < chars.count {
                guard chars[index] == "]", index + 1 < chars.count, chars[index + 1] == "(" else {
                    index += 1
                    continue
                }
                var end = index + 2
                var depth = 1
                while end < chars.count {
                    if chars[end] == "(" { depth += 1 }
                    if chars[end] == ")" { depth -= 1; if depth == 0 { break } }
                    end += 1
                }
                guard end < chars.count else { break }
                var target = String(chars[(index + 2)..<end]).trimmingCharacters(in: .whitespaces)
                if let space = target.firstIndex(of: " ") { target = String(target[..<space]) }
                if target.hasPrefix("<"), target.hasSuffix(">") { target = String(target.dropFirst().dropLast()) }
                if !target.isEmpty, !hasScheme(target) { links.append(target) }
                index = end + 1
            }
        }
        return links
    }

    /// `file.md#part` → (`file.md`, `part`); the anchor is percent-decoded.
    static func split(_ link: String) -> (path: String, anchor: String?) {
        guard let hash = link.firstIndex(of: "#") else { return (link.removingPercentEncoding ?? link, nil) }
        let path = String(link[..<hash])
        let anchor = String(link[link.index(after: hash)...])
        return (path.removingPercentEncoding ?? path, anchor.removingPercentEncoding ?? anchor)
    }

    /// Every heading's anchor, numbered as GitHub numbers repeats (`notes`, `notes-1`, …).
    static func anchors(of text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines(of: text) {
            let trimmed = line.drop { $0 == " " }
            let hashes = trimmed.prefix { $0 == "#" }.count
            guard (1...6).contains(hashes), trimmed.dropFirst(hashes).first == " " else { continue }
            let base = anchor(forHeading: String(trimmed.dropFirst(hashes)))
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// GitHub's anchor of a heading: its text (link targets and code marks dropped) lower-cased,
    /// letters, digits, `-` and `_` kept, each space a `-`, everything else removed.
    static func anchor(forHeading heading: String) -> String {
        var text = heading.trimmingCharacters(in: .whitespaces)
        // [label](target) reads as its label.
        while let open = text.range(of: "]("), let close = text[open.upperBound...].firstIndex(of: ")") {
            text.removeSubrange(open.lowerBound...close)
            if let bracket = text[..<open.lowerBound].lastIndex(of: "[") { text.remove(at: bracket) }
        }
        var anchor = ""
        for character in text.lowercased() {
            if character == " " {
                anchor.append("-")
            } else if character == "-" || character == "_" || character.isLetter || character.isNumber {
                anchor.append(character)
            }
        }
        return anchor
    }

    /// Whether a fenced code block is left open: it would hide every link after it from the check.
    static func hasUnclosedFence(_ text: String) -> Bool {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.drop(while: { $0 == " " }).hasPrefix("```") }.count % 2 == 1
    }

    /// The lines outside fenced code blocks.
    private static func proseLines(of text: String) -> [Substring] {
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { lines.append(line) }
        }
        return lines
    }

    /// The line with its `code spans` removed.
    private static func stripCodeSpans(_ line: Substring) -> String {
        var result = ""
        var inCode = false
        for character in line {
            if character == "`" { inCode.toggle(); continue }
            if !inCode { result.append(character) }
        }
        return result
    }

    private static func hasScheme(_ target: String) -> Bool {
        guard let colon = target.firstIndex(of: ":") else { return false }
        let scheme = target[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }
}
