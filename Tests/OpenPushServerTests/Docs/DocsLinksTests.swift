import Foundation
import OpenPushDelivery
import Testing

/// The README and `docs/` are read on GitHub and in a checkout: every relative link must lead to a
/// file that exists and, for `#anchor`, to a heading of that file with GitHub's anchor for it.
@Suite struct DocsLinksTests {
    /// The checkout this test was built from: `Tests/OpenPushServerTests/Docs/` is three folders down.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    /// `README.md` and every Markdown file under `docs/`, as paths relative to the root.
    static func markdownFiles() throws -> [String] {
        var files = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        guard let walk = FileManager.default.enumerator(atPath: docs.path) else { return files }
        for case let path as String in walk where path.hasSuffix(".md") {
            files.append("docs/" + path)
        }
        return files.sorted()
    }

    @Test func everyRelativeLinkResolves() throws {
        let files = try Self.markdownFiles()
        #expect(files.count > 10, "the docs were not found under \(Self.root.path)")
        var anchorsByFile: [String: Set<String>] = [:]
        func anchors(of path: String) throws -> Set<String> {
            if let known = anchorsByFile[path] { return known }
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let found = MarkdownLinks.anchors(of: text)
            anchorsByFile[path] = found
            return found
        }
        var broken: [String] = []
        for file in files {
            let source = Self.root.appendingPathComponent(file)
            let text = try String(contentsOf: source, encoding: .utf8)
            if MarkdownLinks.hasUnclosedFence(text) { broken.append("\(file): a code block is never closed") }
            for link in MarkdownLinks.relativeLinks(in: text) {
                let (target, anchor) = MarkdownLinks.split(link)
                let resolved = target.isEmpty
                    ? source.standardizedFileURL
                    : source.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isDirectory) else {
                    broken.append("\(file): \(link) (no such file)")
                    continue
                }
                guard let anchor else { continue }
                guard !isDirectory.boolValue, resolved.pathExtension == "md",
                      try anchors(of: resolved.path).contains(anchor) else {
                    broken.append("\(file): \(link) (no heading with anchor '\(anchor)')")
                    continue
                }
            }
        }
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    /// The configuration page names every variable `openpush` reads (`openpush help` lists them).
    @Test func configurationPageNamesEveryVariable() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/operating/configuration.md"), encoding: .utf8)
        let missing = Configuration.documentation.map(\.name).filter { !page.contains("`\($0)`") }
        #expect(missing.isEmpty, "not in docs/operating/configuration.md: \(missing)")
    }

    /// The README stays an entry point, with the two set-up commands.
    @Test func readmeIsShortAndGivesTheTwoCommands() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 200)
        #expect(readme.contains("\nmake run "))
        #expect(readme.contains("\nmake test "))
    }

    @Test(arguments: [
        ("Secrets at rest and key rotation", "secrets-at-rest-and-key-rotation"),
        ("`openpush dev` (`make run`)", "openpush-dev-make-run"),
        ("Privacy, and never a blank notification", "privacy-and-never-a-blank-notification"),
        ("Broadcast channels (iOS 18)", "broadcast-channels-ios-18"),
        ("Scale-out: several processes, PgBouncer", "scale-out-several-processes-pgbouncer"),
        ("What [Liquid](templates.md) reads", "what-liquid-reads"),
        ("Rendering_budget 2", "rendering_budget-2"),
    ])
    func githubAnchors(heading: String, anchor: String) {
        #expect(MarkdownLinks.anchor(forHeading: heading) == anchor)
    }

    @Test func linksOutsideCodeOnly() {
        let text = """
            See [a](a.md), [b](b.md#part "title") and ![img](img/x.png), not `[c](c.md)` nor
            [web](https://example.com) nor [mail](mailto:x@example.com).

            ```sh
            echo [d](d.md)
            ```
            [e](#local)
            """
        #expect(MarkdownLinks.relativeLinks(in: text) == ["a.md", "b.md#part", "img/x.png", "#local"])
    }

    @Test func unclosedFenceIsFound() {
        #expect(MarkdownLinks.hasUnclosedFence("```sh\nmake run\n```\n[a](a.md)\n```\n[b](b.md)\n"))
        #expect(!MarkdownLinks.hasUnclosedFence("```sh\nmake run\n```\n[a](a.md)\n"))
    }

    @Test func duplicateHeadingsGetNumberedAnchors() {
        let text = "# Top\n## Notes\n```\n# not a heading\n```\n## Notes\n### Notes\n"
        #expect(MarkdownLinks.anchors(of: text) == ["top", "notes", "notes-1", "notes-2"])
    }
}
