/// The services of a `docker-compose.yml` that build this repository's image, with the
/// `command:` each passes to it, read as text (flow-style commands, `<<: *anchor` merges of
/// top-level `x-…: &anchor` blocks). Just enough YAML to check that every command suits the
/// image's `ENTRYPOINT ["openpush"]`. Pure: no I/O, no Foundation.
struct ComposeFile {
    struct Service: Equatable {
        var name: String
        /// From `build:` in the service or in a block it merges.
        var buildsImage: Bool
        var command: [String]?
    }

    var services: [Service]

    init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !Self.trimmed($0).hasPrefix("#") && !Self.trimmed($0).isEmpty }
        // Top-level blocks: `name: &anchor` or `services:`, each with the lines indented under it.
        var blocks: [(header: String, body: [String])] = []
        for line in lines {
            if Self.indent(line) == 0 { blocks.append((line, [])) } else if !blocks.isEmpty { blocks[blocks.count - 1].body.append(line) }
        }
        var buildingAnchors: Set<String> = []
        for block in blocks {
            guard let ampersand = block.header.firstIndex(of: "&") else { continue }
            let anchor = Self.trimmed(String(block.header[block.header.index(after: ampersand)...]))
            if block.body.contains(where: { Self.key($0) == "build" }) { buildingAnchors.insert(anchor) }
        }
        services = []
        guard let body = blocks.first(where: { Self.trimmed($0.header) == "services:" })?.body,
              let serviceIndent = body.first.map(Self.indent) else { return }
        for line in body {
            if Self.indent(line) == serviceIndent {
                services.append(Service(name: String(Self.trimmed(line).dropLast()), buildsImage: false, command: nil))
                continue
            }
            guard !services.isEmpty, Self.indent(line) == serviceIndent + 2 else { continue }
            let value = Self.value(line)
            switch Self.key(line) {
            case "build": services[services.count - 1].buildsImage = true
            case "<<" where value.hasPrefix("*") && buildingAnchors.contains(String(value.dropFirst())):
                services[services.count - 1].buildsImage = true
            case "command": services[services.count - 1].command = Dockerfile.jsonArray(value)
            default: break
            }
        }
    }

    private static func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    private static func key(_ line: String) -> String {
        let text = trimmed(line)
        return text.firstIndex(of: ":").map { String(text[..<$0]) } ?? ""
    }

    private static func value(_ line: String) -> String {
        let text = trimmed(line)
        return text.firstIndex(of: ":").map { trimmed(String(text[text.index(after: $0)...])) } ?? ""
    }

    private static func trimmed(_ text: String) -> String {
        var slice = Substring(text)
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice.removeLast() }
        return String(slice)
    }
}
