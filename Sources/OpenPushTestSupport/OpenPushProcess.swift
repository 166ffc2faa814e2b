import Foundation
import Synchronization

/// The built `openpush` executable, run as a child process the way an operator runs it.
public final class OpenPushProcess: Sendable {
    /// Next to the test bundle in the build directory (`swift build --build-tests` builds both).
    public static var executablePath: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let candidates = [testBinary.appendingPathComponent("openpush").path,
                          TestApp.repositoryRoot + "/.build/debug/openpush"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }

    private let process: Process
    private let output = OutputBuffer()

    /// Starts `openpush <arguments>` with the given environment added to a minimal one.
    public init(_ arguments: [String], environment: [String: String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executablePath)
        process.arguments = arguments
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                    "OPENPUSH_RESOURCES_DIR": TestApp.repositoryRoot]
        base.merge(environment) { $1 }
        process.environment = base
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { handle.readabilityHandler = nil; return }
            output.append(String(decoding: data, as: UTF8.self))
        }
        try process.run()
    }

    /// Everything the process wrote to stdout and stderr so far.
    public var log: String { output.text }

    /// Waits for a line matching `marker` and returns the rest of that line.
    public func waitForLog(_ marker: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = log.split(separator: "\n").first(where: { $0.contains(marker) }) {
                return String(line[line.range(of: marker)!.upperBound...])
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ChildProcess.Failure(description: "no '\(marker)' in the output of openpush:\n\(log)")
    }

    /// The port from the `listening` line (`http.address=host:port`).
    public func waitForPort() async throws -> Int {
        let rest = try await waitForLog("http.address=")
        let address = rest.split(separator: " ").first ?? ""
        guard let port = Int(address.split(separator: ":").last ?? "") else {
            throw ChildProcess.Failure(description: "cannot read the port from '\(rest)'")
        }
        return port
    }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for exit and returns the status; kills the process if it outlives `timeout`.
    public func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            process.terminate()
            throw ChildProcess.Failure(description: "openpush did not exit in time:\n\(log)")
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// What a child process has written so far, appended from Foundation's reader thread.
private final class OutputBuffer: Sendable {
    private let storage = Mutex<String>("")

    func append(_ text: String) { storage.withLock { $0 += text } }
    var text: String { storage.withLock { $0 } }
}
