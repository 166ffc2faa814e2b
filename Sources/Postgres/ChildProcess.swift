import CPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion with `posix_spawn` + `waitpid`, output into a file.
///
/// Not Foundation `Process`: on Linux it notices a child's exit through a socket the child
/// inherits, so `pg_ctl start` — whose daemon keeps every inherited descriptor — never "exits".
/// Here the child gets only stdin (/dev/null), stdout and stderr; everything else is closed.
enum ChildProcess {
    struct Output {
        var status: Int32
        var text: String
    }

    static func run(_ executable: String, _ arguments: [String], workingDirectory: String?) throws -> Output {
        let outputPath = NSTemporaryDirectory() + "openpush-child-\(UUID().uuidString).out"
        defer { unlink(outputPath) }

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
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw PostgresClusterError("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw PostgresClusterError("waiting for \(executable) failed: \(String(cString: strerror(errno)))")
            }
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS are macros: decode the wait status by hand.
        let exitCode = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Output(status: exitCode, text: text)
    }
}
