import Foundation
import Subprocess

/// Calls a running server with the `curl` command, for tests that need real sockets.
package enum Curl {
    package struct Result: Sendable {
        package var status: Int
        /// Header lines of the last response, names lower-cased.
        package var headers: [String: String]
        package var body: [UInt8]
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The status of each request one curl process makes, in order: `urls` one after another on
    /// kept-alive connections, each with the same `arguments` and its body thrown away.
    package static func statuses(_ arguments: [String], urls: [String]) async throws -> [Int] {
        let output = try await Subprocess.run("curl", ["-s", "-S", "--max-time", "120", "-w", "%{http_code}\\n"] + arguments
                                                  + urls.flatMap { ["-o", "/dev/null", $0] })
        guard output.status == 0 else { throw Subprocess.Failure("curl failed: \(output.text)") }
        return output.text.split(separator: "\n").compactMap { Int($0) }
    }

    /// One request; curl gives up after `maxTime` seconds.
    package static func run(_ arguments: [String], maxTime: Int = 120) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let headerFile = directory.appendingPathComponent("headers").path
        let bodyFile = directory.appendingPathComponent("body").path
        let output = try await Subprocess.run("curl", ["-s", "-S", "--max-time", String(maxTime), "-D", headerFile, "-o", bodyFile,
                                                 "-w", "%{http_code}"] + arguments)
        guard output.status == 0 else { throw Subprocess.Failure("curl failed: \(output.text)") }
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        // With several responses (redirects, 100-continue), keep the last block.
        let lastBlock = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        var headers: [String: String] = [:]
        for line in lastBlock.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))).map(Array.init) ?? []
        return Result(status: Int(output.text.suffix(3)) ?? 0, headers: headers, body: body)
    }
}
