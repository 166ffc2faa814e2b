import Foundation
package import Subprocess

/// The built `openpush` executable, run as a child process the way an operator runs it.
package final class OpenPushProcess: Sendable {
    /// Next to the test bundle in the build directory (`swift build --build-tests` builds both).
    package static var executablePath: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let candidates = [testBinary.appendingPathComponent("openpush").path,
                          TestApp.repositoryRoot + "/.build/debug/openpush"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }

    /// A minimal environment that finds the repository's resources, plus `extra`.
    package static func environment(_ extra: [String: String]) -> [String: String] {
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                    "OPENPUSH_RESOURCES_DIR": TestApp.repositoryRoot]
        base.merge(extra) { $1 }
        return base
    }

    /// Runs `openpush <arguments>` to completion.
    package static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Subprocess.Output {
        try await Subprocess.run(executablePath, arguments, environment: Self.environment(environment))
    }

    private let child: Subprocess

    /// Starts `openpush <arguments>` in the background (in `workingDirectory` when given: `dev`
    /// keeps its state under `./.openpush`).
    package init(_ arguments: [String], environment: [String: String], workingDirectory: String? = nil) throws {
        child = try Subprocess(Self.executablePath, arguments, environment: Self.environment(environment),
                               workingDirectory: workingDirectory)
    }

    /// Everything the process wrote to stdout and stderr so far.
    package var log: String { child.output }

    /// Waits for a line containing `marker` and returns the rest of that line.
    package func waitForLog(_ marker: String, timeout: Duration = .seconds(120)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = log.split(separator: "\n").first(where: { $0.contains(marker) }) {
                return String(line[line.range(of: marker)!.upperBound...])
            }
            guard child.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Subprocess.Failure("no '\(marker)' in the output of openpush:\n\(log)")
    }

    /// The port from the `listening` line (`http.address=host:port`). `timeout` as for
    /// `waitForLog`: a start that first migrates an empty database needs more on a loaded machine.
    package func waitForPort(timeout: Duration = .seconds(120)) async throws -> Int {
        let rest = try await waitForLog("http.address=", timeout: timeout)
        let address = rest.split(separator: " ").first ?? ""
        guard let port = Int(address.split(separator: ":").last ?? "") else {
            throw Subprocess.Failure("cannot read the port from '\(rest)'")
        }
        return port
    }

    /// The child's pid (a delivery worker's id in `leased_by` names it).
    package var processIdentifier: Int32 { child.processIdentifier }

    package func signal(_ number: Int32) { child.signal(number) }

    /// Waits for exit and returns the status; kills the process if it outlives `timeout`.
    package func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while child.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if child.isRunning {
            child.signal(SIGKILL)
            throw Subprocess.Failure("openpush did not exit in time:\n\(log)")
        }
        return try child.waitForExit()
    }
}
