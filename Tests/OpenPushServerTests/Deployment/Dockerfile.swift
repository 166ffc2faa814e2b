/// A Dockerfile read as text, as far as the image check needs it: stages, the packages each
/// `apt-get install` names, `COPY` sources and destinations, and the last `ENV`/`USER`/
/// `ENTRYPOINT`/`CMD`/`EXPOSE` of a stage. Pure: no I/O, no Foundation.
struct Dockerfile {
    struct Instruction: Equatable {
        /// Upper-cased (`RUN`, `COPY`, …).
        var keyword: String
        /// Everything after the keyword, continuation lines joined with a space.
        var arguments: String
    }

    struct Copy: Equatable {
        /// The stage named by `--from=`; nil: the build context.
        var from: String?
        var sources: [String]
        var destination: String
    }

    struct Stage {
        var base: String
        var name: String?
        var instructions: [Instruction]

        /// Every package an `apt-get install` (or `apt install`) in a `RUN` of this stage names.
        var aptPackages: [String] {
            instructions.filter { $0.keyword == "RUN" }.flatMap { Dockerfile.aptPackages(inShell: $0.arguments) }
        }

        var copies: [Copy] {
            instructions.filter { $0.keyword == "COPY" || $0.keyword == "ADD" }.compactMap { Dockerfile.copy($0.arguments) }
        }

        /// The `RUN` commands, as written.
        var runs: [String] { instructions.filter { $0.keyword == "RUN" }.map(\.arguments) }

        /// `ENV` assignments of this stage, later ones winning.
        var environment: [String: String] {
            var result: [String: String] = [:]
            for instruction in instructions where instruction.keyword == "ENV" {
                let words = Dockerfile.words(instruction.arguments)
                if words.count == 2, !words[0].contains("=") {
                    result[words[0]] = words[1]  // the legacy `ENV KEY value` form
                    continue
                }
                for word in words {
                    guard let equals = word.firstIndex(of: "=") else { continue }
                    result[String(word[..<equals])] = Dockerfile.unquoted(String(word[word.index(after: equals)...]))
                }
            }
            return result
        }

        /// The arguments of the last instruction with this keyword (`USER`, `CMD`, …).
        func last(_ keyword: String) -> String? {
            instructions.last { $0.keyword == keyword }?.arguments
        }
    }

    var stages: [Stage]

    /// The stage the image is made of: the last one.
    var runtime: Stage? { stages.last }

    func stage(named name: String) -> Stage? { stages.first { $0.name == name } }

    init(_ text: String) {
        stages = []
        for instruction in Self.instructions(text) {
            if instruction.keyword == "FROM" {
                let words = Self.words(instruction.arguments).filter { !$0.hasPrefix("--") }
                let name = words.count >= 3 && words[1].uppercased() == "AS" ? words[2] : nil
                stages.append(Stage(base: words.first ?? "", name: name, instructions: []))
            } else if !stages.isEmpty {
                stages[stages.count - 1].instructions.append(instruction)
            }
        }
    }

    /// The instructions, with comment lines dropped and `\` continuations joined.
    static func instructions(_ text: String) -> [Instruction] {
        var result: [Instruction] = []
        var pending = ""
        func finish() {
            let line = trimmed(pending)
            pending = ""
            guard !line.isEmpty else { return }
            let keywordEnd = line.firstIndex { $0 == " " || $0 == "\t" } ?? line.endIndex
            result.append(Instruction(keyword: String(line[..<keywordEnd]).uppercased(),
                                      arguments: trimmed(String(line[keywordEnd...]))))
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = trimmed(String(rawLine))
            if line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()) + " "
            } else {
                pending += line
                finish()
            }
        }
        finish()
        return result
    }

    /// The packages of every `apt-get install` in a shell command line: the words after
    /// `install` up to the end of that command (`&&`, `;`, `|`), options left out.
    static func aptPackages(inShell command: String) -> [String] {
        var packages: [String] = []
        for part in commands(command) {
            let words = Self.words(part)
            guard let apt = words.firstIndex(where: { $0 == "apt-get" || $0 == "apt" }),
                  let install = words[apt...].firstIndex(of: "install") else { continue }
            packages += words[(install + 1)...].filter { !$0.hasPrefix("-") }
        }
        return packages
    }

    /// A `COPY`/`ADD` in shell form (`COPY [--from=x] a b dest`) or JSON form (`COPY ["a", "dest"]`).
    static func copy(_ arguments: String) -> Copy? {
        var words = Self.words(arguments)
        var from: String?
        while let first = words.first, first.hasPrefix("--") {
            if first.hasPrefix("--from=") { from = String(first.dropFirst("--from=".count)) }
            words.removeFirst()
        }
        if let first = words.first, first.hasPrefix("[") {
            words = jsonArray(words.joined(separator: " ")) ?? []
        }
        guard words.count >= 2, let destination = words.last else { return nil }
        return Copy(from: from, sources: Array(words.dropLast()), destination: destination)
    }

    /// The strings of a JSON-form argument list (`["openpush"]`); nil when it is not one.
    static func jsonArray(_ arguments: String) -> [String]? {
        let text = trimmed(arguments)
        guard text.hasPrefix("["), text.hasSuffix("]") else { return nil }
        let inner = text.dropFirst().dropLast()
        if trimmed(String(inner)).isEmpty { return [] }
        var result: [String] = []
        for item in inner.split(separator: ",") {
            let value = trimmed(String(item))
            guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return nil }
            result.append(String(value.dropFirst().dropLast()))
        }
        return result
    }

    private static func commands(_ shell: String) -> [String] {
        var result: [String] = []
        var current = ""
        for character in shell {
            if character == ";" || character == "|" || character == "&" {
                result.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        result.append(current)
        return result
    }

    static func words(_ text: String) -> [String] {
        text.split { $0 == " " || $0 == "\t" }.map(String.init)
    }

    private static func unquoted(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
    }

    private static func trimmed(_ text: String) -> String {
        var slice = Substring(text)
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice.removeLast() }
        return String(slice)
    }
}
