import Foundation

/// Runs curl on its own thread: blocking on a subprocess must not tie up the two-thread
/// cooperative pool the server's responder also needs.
enum Curl {
    struct Result {
        var exitCode: Int32
        var output: Data
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    static func run(_ arguments: [String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                // The bound only ends a hung request: the parallel suite can starve a streamed
                // body's source for longer than 20 s on a loaded 2-core machine (a test that needs a
                // shorter bound passes its own `--max-time`, which curl takes over this one).
                process.arguments = ["curl", "--silent", "--max-time", "120"] + arguments
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let output = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: Result(exitCode: process.terminationStatus, output: output))
            }
        }
    }

    /// A parsed `curl --include` response; interim 100 Continue blocks are skipped.
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    static func request(_ arguments: [String]) async throws -> Response {
        let result = try await run(["--include"] + arguments)
        guard result.exitCode == 0 else { throw CurlFailure(exitCode: result.exitCode) }
        var rest = result.output[...]
        while true {
            guard let end = rest.firstRange(of: Data("\r\n\r\n".utf8)) else { throw CurlFailure(exitCode: -1) }
            let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            rest = rest[end.upperBound...]
            let status = Int(head[0].split(separator: " ")[1]) ?? 0
            if status == 100 { continue }
            let headers = head.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            return Response(status: status, headers: headers, body: Data(rest))
        }
    }
}

struct CurlFailure: Error {
    var exitCode: Int32
}
