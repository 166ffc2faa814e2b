import CSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its output going to a file, reaped with `waitpid`.
///
/// Not Foundation `Process`: on Linux it notices a child's exit through a socket the child
/// inherits, so a daemon such as the server `pg_ctl start` leaves behind keeps that "child"
/// alive forever; and children spawned at the same moment inherit each other's pipes. Here a
/// child gets only stdin (/dev/null), stdout and stderr; every other descriptor is closed.
package final class Subprocess: Sendable {
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package struct Output: Sendable {
        package var status: Int32
        /// Standard output and standard error, interleaved as written.
        package var text: String
    }

    package let processIdentifier: Int32
    package let outputPath: String
    private let reaped = Reaped()

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`.
    /// `environment` replaces this process's environment when given.
    package init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                workingDirectory: String? = nil) throws {
        outputPath = NSTemporaryDirectory() + "openpush-child-\(UUID().uuidString).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let workingDirectory {
            posix_spawn_file_actions_addchdir_np(&actions, workingDirectory)
        }

        // Children start with no blocked signals and default SIGPIPE, whatever this process set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = envp.map { envp in
            posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        } ?? posix_spawnp(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            unlink(outputPath)
            throw Failure("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        processIdentifier = pid
    }

    deinit {
        if reaped.status == nil {
            kill(processIdentifier, SIGKILL)
            _ = try? waitForExit()
        }
        unlink(outputPath)
    }

    /// Runs a program to completion and returns its exit status and output.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           workingDirectory: String? = nil) throws -> Output {
        let child = try Subprocess(executable, arguments, environment: environment, workingDirectory: workingDirectory)
        let status = try child.waitForExit()
        return Output(status: status, text: child.output)
    }

    /// The same, waiting without holding a thread: callers on Swift's cooperative pool (which
    /// has as many threads as cores) must not block it, or in-process servers stall.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           workingDirectory: String? = nil) async throws -> Output {
        let child = try Subprocess(executable, arguments, environment: environment, workingDirectory: workingDirectory)
        let status = try await child.exited()
        return Output(status: status, text: child.output)
    }

    /// Waits for the child to exit by polling, without blocking a thread.
    package func exited(pollEvery interval: Duration = .milliseconds(10)) async throws -> Int32 {
        while isRunning {
            try await Task.sleep(for: interval)
        }
        return try waitForExit()
    }

    /// What the child has written so far.
    package var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    package func signal(_ number: Int32) { kill(processIdentifier, number) }

    /// Whether the child has exited (reaping it if so), without blocking.
    package var isRunning: Bool {
        guard reaped.status == nil else { return false }
        var status: Int32 = 0
        guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return true }
        reaped.status = Self.exitCode(status)
        return false
    }

    /// Blocks until the child exits; returns its exit code (128 + signal when killed).
    @discardableResult
    package func waitForExit() throws -> Int32 {
        if let status = reaped.status { return status }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) == -1 {
            if errno == ECHILD, let known = reaped.status { return known }
            guard errno == EINTR else { throw Failure("waiting for a child failed: \(String(cString: strerror(errno)))") }
        }
        let code = Self.exitCode(status)
        reaped.status = code
        return code
    }

    // WIFEXITED / WEXITSTATUS are macros: decode the wait status by hand.
    private static func exitCode(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}

/// The exit code once the child has been reaped (a pid can be waited for only once).
private final class Reaped: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int32?

    var status: Int32? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
