/// Whether the Dockerfile's runtime stage holds every shared library a built `openpush` loads,
/// decided from the text of `ldd`, `readelf -d`, `dpkg -S` and `dpkg-query` (run by
/// DockerImageTests on this Debian 12 machine, the runtime stage's release). Pure: no I/O.
///
/// - A library the binary names itself (`NEEDED`) must come from a package the runtime stage
///   installs by name, or from the base image (`basePackages`): dropping `libcurl4` from the
///   stage fails even though nothing else would pull it in.
/// - A library one of those loads in turn may also come from a package they depend on
///   (`Depends`/`Pre-Depends`, first alternative), which apt installs along with them.
/// - A library of the Swift runtime (under the toolchain's `lib/swift/linux/`: the debug binary
///   links it dynamically) passes only if the build stage links it statically
///   (`--static-swift-stdlib`) or the runtime stage copies `/usr/lib/swift/linux` from it.
struct DockerImageCheck {
    /// In `debian:bookworm-slim` before any `apt-get install`.
    static let basePackages: Set<String> = ["libc6", "libgcc-s1", "libstdc++6"]

    struct Library: Equatable {
        var name: String
        /// nil: `ldd` printed `not found`.
        var path: String?
    }

    var dockerfile: Dockerfile
    /// `readelf -d` of the binary: the libraries it names itself.
    var needed: [String]
    /// `ldd` of the binary: everything it loads.
    var loaded: [Library]
    /// The packages that own each loaded path (`dpkg -S`, architecture suffix dropped).
    var owners: [String: [String]]
    /// Package → the packages it depends on (`dpkg-query`).
    var dependencies: [String: [String]]

    /// One sentence per library the image would lack; empty when the image holds them all.
    func problems() -> [String] {
        guard let runtime = dockerfile.runtime else { return ["the Dockerfile has no FROM"] }
        let direct = Set(runtime.aptPackages).union(Self.basePackages)
        let installed = Self.closure(of: direct, dependencies: dependencies)
        let neededNames = Set(needed)
        var problems: [String] = []
        for library in loaded {
            guard let path = library.path else {
                problems.append("\(library.name): ldd finds no file for it on this machine")
                continue
            }
            if Self.isSwiftRuntime(path) {
                if !swiftRuntimeIncluded {
                    problems.append("\(library.name) (\(path)) is the Swift runtime, which the image neither links statically (--static-swift-stdlib) nor copies")
                }
                continue
            }
            let packages = owners[path] ?? []
            guard !packages.isEmpty else {
                problems.append("\(library.name) (\(path)) belongs to no Debian package (dpkg -S)")
                continue
            }
            let names = neededNames.contains(library.name) || neededNames.contains(Self.fileName(path))
            let accepted = names ? direct : installed
            if accepted.isDisjoint(with: packages) {
                let how = names ? "names it, but the runtime stage does not install" : "loads it, but the runtime stage installs neither"
                problems.append("the binary \(how) \(packages.joined(separator: " or ")) (\(library.name))")
            }
        }
        return problems
    }

    /// The build stage runs `swift build … --static-swift-stdlib`, or the runtime stage copies
    /// the toolchain's shared runtime from an earlier stage.
    var swiftRuntimeIncluded: Bool {
        let staticallyLinked = dockerfile.stages.dropLast().contains { stage in
            stage.runs.contains { $0.contains("swift build") && $0.contains("--static-swift-stdlib") }
        }
        let copied = dockerfile.runtime?.copies.contains { copy in
            copy.from != nil && copy.sources.contains { $0.contains("/lib/swift/linux") }
        } ?? false
        return staticallyLinked || copied
    }

    static func isSwiftRuntime(_ path: String) -> Bool { path.contains("/lib/swift/linux/") }

    static func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    /// `roots` and every package they depend on, transitively.
    static func closure(of roots: Set<String>, dependencies: [String: [String]]) -> Set<String> {
        var result = roots
        var pending = Array(roots)
        while let package = pending.popLast() {
            for dependency in dependencies[package] ?? [] where result.insert(dependency).inserted {
                pending.append(dependency)
            }
        }
        return result
    }

    // MARK: - Reading the tools' output

    /// `ldd` lines: `libpq.so.5 => /lib/x86_64-linux-gnu/libpq.so.5 (0x…)`,
    /// `/lib64/ld-linux-x86-64.so.2 (0x…)`, `libx.so.1 => not found`; the vDSO has no file.
    static func parseLdd(_ text: String) -> [Library] {
        var result: [Library] = []
        for line in text.split(separator: "\n") {
            let words = Dockerfile.words(String(line))
            guard let first = words.first, first.contains(".so") || first.hasPrefix("/") else { continue }
            if words.count >= 3, words[1] == "=>" {
                if words[2] == "not" {
                    result.append(Library(name: first, path: nil))
                } else if words[2].hasPrefix("/") {
                    result.append(Library(name: first, path: words[2]))
                }
                // `=>` followed by an address: the vDSO on some systems.
            } else if first.hasPrefix("/") {
                result.append(Library(name: fileName(first), path: first))
            }
        }
        return result
    }

    /// `readelf -d` lines ` 0x… (NEEDED)  Shared library: [libpq.so.5]`.
    static func parseNeeded(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]"),
                  open < close else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    /// `dpkg -S` lines `libpq5:amd64: /usr/lib/…/libpq.so.5` (or `a:amd64, b: path`) → path →
    /// packages, without the architecture; error and diversion lines are skipped.
    static func parseDpkgSearch(_ text: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            guard !line.hasPrefix("dpkg-query:"), !line.hasPrefix("diversion "),
                  let separator = line.range(of: ": /") else { continue }
            let path = String(line[line.index(before: separator.upperBound)...])
            let packages = line[..<separator.lowerBound].split(separator: ",").map { package in
                String(package.split(separator: ":").first ?? "").filter { $0 != " " }
            }
            result[path, default: []] += packages
        }
        return result
    }

    /// `dpkg-query -W -f '${Package}\t${Depends}\t${Pre-Depends}\n'` → package → its
    /// dependencies (first alternative of each, versions and `:any` dropped).
    static func parseDependencies(_ text: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard let package = fields.first, !package.isEmpty, !package.contains(" ") else { continue }
            let relations = fields.dropFirst().flatMap { $0.split(separator: ",") }
            result[String(package)] = relations.compactMap { relation in
                let firstAlternative = relation.split(separator: "|").first ?? ""
                let name = Dockerfile.words(String(firstAlternative)).first ?? ""
                let bare = name.split(separator: ":").first.map(String.init) ?? ""
                return bare.isEmpty ? nil : bare
            }
        }
        return result
    }

    /// The paths `dpkg -S` may know a loaded file by: Debian 12 merges /lib into /usr/lib, but
    /// each package lists its files where it installs them, and `ldd` prints either.
    static func pathVariants(_ path: String) -> [String] {
        if path.hasPrefix("/usr/") { return [path, String(path.dropFirst("/usr".count))] }
        return [path, "/usr" + path]
    }
}
