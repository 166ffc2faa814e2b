import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `openpush apns-sim --accept-any-token` in a child process, for tests whose own process
/// must not hold the simulator's threads (one per connection).
final class APNSSimulatorProcess {
    let process = Process()
    let url: String

    init() throws {
        process.executableURL = URL(fileURLWithPath: try builtExecutable("openpush"))
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

/// An executable of this package, next to the test bundle (`swift build --build-tests`
/// builds every product).
func builtExecutable(_ name: String) throws -> String {
    let directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
    let candidates = [directory.appendingPathComponent(name).path, ".build/debug/\(name)"]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw SimulatorProcessError("no \(name) executable at \(candidates): run swift build --build-tests")
    }
    return executable
}

/// Runs `executable arguments` to its end (killing it after `timeout` seconds) and returns its stdout.
func runToEnd(_ executable: String, _ arguments: [String], timeout: Double) async throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let reading = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
    if process.isRunning {
        process.terminate()
        throw SimulatorProcessError("\(executable) did not finish in \(timeout) s")
    }
    return String(decoding: await reading.value, as: UTF8.self)
}
