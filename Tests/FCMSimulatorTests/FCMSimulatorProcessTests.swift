import FCMSimulator
import Foundation
import HTTPClient
import OpenPushCore
import Testing

private typealias Fixtures = FCMSimulatorFixtures

/// `openpush fcm-sim` in a child process: its printed lines say where it listens, and a key
/// file given with `--service-account` gets access tokens that send.
@Suite struct FCMSimulatorProcessTests {
    @Test func theCommandPrintsItsURLsAndServesTheKeyFileItWasGiven() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-fcm-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("service-account.json")
        try Data(Fixtures.accountA.keyFileJSON).write(to: keyFile)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: try builtExecutable("openpush"))
        process.arguments = ["fcm-sim", "--port", "0", "--token-port", "0", "--control-port", "0", "--service-account", keyFile.path]
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
        let endpoint = try #require(Self.url(after: "FCM simulator listening on ", in: text))
        let tokenURL = try #require(Self.url(after: "token endpoint on ", in: text))
        let controlURL = try #require(Self.url(after: "control API on ", in: text))
        #expect(text.contains(Fixtures.accountA.clientEmail))

        let client = try HTTPClient()
        let assertion = Fixtures.accountA.assertion(audience: tokenURL, issuedAt: Date())
        let (status, body) = try await Fixtures.exchange(assertion, at: tokenURL, client: client)
        #expect(status == 200)
        let accessToken = try #require(body["access_token"]?.stringValue)
        let port = try #require(UInt16(endpoint.split(separator: ":").last ?? ""))
        let response = try await FCMSimulatorTestClient.send(
            .init(path: "/v1/projects/project-a/messages:send", accessToken: accessToken,
                  body: Array(#"{"message": {"token": "device-1", "notification": {"title": "Hi"}}}"#.utf8)),
            port: port)
        #expect(response.status == 200)
        let listed = try await client.send(HTTPClientRequest(url: controlURL + "/messages?token=device-1", method: "GET", timeout: .seconds(120)))
        #expect(try JSONValue.parse(listed.body).objectValue?["messages"]?.arrayValue?.count == 1)
        await client.shutdown()
    }

    @Test func theCommandRefusesToStartWithoutAServiceAccount() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try builtExecutable("openpush"))
        process.arguments = ["fcm-sim", "--port", "0"]
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

/// An executable of this package, next to the test bundle (`swift build --build-tests` builds every product).
func builtExecutable(_ name: String) throws -> String {
    let directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
    let candidates = [directory.appendingPathComponent(name).path, ".build/debug/\(name)"]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw FCMSimulatorTestClient.ClientError(message: "no \(name) executable at \(candidates): run swift build --build-tests")
    }
    return executable
}
