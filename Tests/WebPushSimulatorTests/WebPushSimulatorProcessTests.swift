import Foundation
import HTTPClient
import OpenPushCore
import Testing

/// `openpush webpush-sim` in a child process: its printed lines say where it listens (after its
/// RFC 8291 self-check), and its control API makes a browser subscription.
@Suite struct WebPushSimulatorProcessTests {
    struct Missing: Error {
        var message: String
    }

    /// An executable of this package, next to the test bundle (`swift build --build-tests` builds every product).
    static func builtExecutable(_ name: String) throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let candidates = [directory.appendingPathComponent(name).path, ".build/debug/\(name)"]
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Missing(message: "no \(name) executable at \(candidates): run swift build --build-tests")
        }
        return executable
    }

    @Test func theCommandPrintsItsURLsAndItsControlAPIMakesASubscription() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.builtExecutable("openpush"))
        process.arguments = ["webpush-sim", "--port", "0", "--control-port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var text = ""
        while !text.contains("try: curl") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains("checked against RFC 8291 Appendix A"))
        let origin = try #require(Self.url(after: "Web Push simulator listening on ", in: text))
        let controlURL = try #require(Self.url(after: "control API on ", in: text))
        let client = try HTTPClient()
        let made = try await client.send(HTTPClientRequest(url: controlURL + "/subscriptions", method: "POST",
                                                           body: Array(#"{"path": "/push/p"}"#.utf8), timeout: .seconds(120)))
        #expect(made.status == 201)
        #expect(try JSONValue.parse(made.body).objectValue?["endpoint"]?.stringValue == origin + "/push/p")
        await client.shutdown()
    }

    @Test func theCommandRefusesAnUnknownOption() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.builtExecutable("openpush"))
        process.arguments = ["webpush-sim", "--service-account", "x"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
    }

    /// The URL that follows `marker`, up to the next space.
    private static func url(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker) else { return nil }
        return text[range.upperBound...].split(separator: " ", maxSplits: 1).first.map(String.init)
    }
}
