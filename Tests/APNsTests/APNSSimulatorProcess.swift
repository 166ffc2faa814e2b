import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `openpush apns-sim --accept-any-token` in a child process, for tests whose own process
/// must not hold the simulator's threads (one per connection). `swift build --build-tests`
/// builds the executable next to the test bundle.
final class APNSSimulatorProcess {
    let process = Process()
    let url: String

    init() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let candidates = [directory.appendingPathComponent("openpush").path, ".build/debug/openpush"]
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SimulatorProcessError("no openpush executable at \(candidates): run swift build --build-tests")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["apns-sim", "--accept-any-token", "--port", "0", "--control-port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The banner's first line names the endpoint: "APNs simulator listening on http://127.0.0.1:PORT (…".
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: "listening on "), let end = text[range.upperBound...].firstIndex(of: " ") {
                url = String(text[range.upperBound..<end])
                return
            }
        }
        process.terminate()
        throw SimulatorProcessError("the simulator did not say where it listens: \(text)")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct SimulatorProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Threads of this process now, from /proc/self/status.
func processThreadCount() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
          let count = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
    else { return -1 }
    return count
}
