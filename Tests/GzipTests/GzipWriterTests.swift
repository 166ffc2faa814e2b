import Foundation
import Testing
import Gzip

/// The writer's output is gzip that zlib and the system's `gzip -d` both read back, written as
/// it goes: a long input comes out in pieces, not all at `finish`.
@Suite struct GzipWriterTests {
    static func compress(_ pieces: [[UInt8]], level: Int32 = 6) throws -> (bytes: [UInt8], beforeFinish: Int) {
        let writer = try GzipWriter(level: level)
        var output: [UInt8] = []
        for piece in pieces { output += try writer.write(piece) }
        let beforeFinish = output.count
        output += try writer.finish()
        return (output, beforeFinish)
    }

    @Test func roundTripsThroughGunzip() throws {
        let text = (0..<2000).map { "row \($0),\"quoted, field\",é\n" }.joined()
        let pieces = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Array($0) + [10] }
        let (bytes, _) = try Self.compress(pieces)
        #expect(Array(bytes.prefix(2)) == [0x1f, 0x8b], "gzip magic")
        #expect(bytes.count < text.utf8.count / 4)
        let back = try Gunzip.decompress(bytes)
        #expect(String(decoding: back, as: UTF8.self) == text + "\n")
    }

    @Test func anEmptyStreamIsAValidEmptyFile() throws {
        let (bytes, _) = try Self.compress([])
        #expect(try Gunzip.decompress(bytes).isEmpty)
    }

    /// Incompressible input larger than zlib's buffers comes out before `finish`.
    @Test func outputComesAsInputIsWritten() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = (0..<64).map { _ in (0..<16_384).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let (bytes, beforeFinish) = try Self.compress(pieces, level: 1)
        #expect(beforeFinish > 512 * 1024)
        #expect(try Gunzip.decompress(bytes) == pieces.flatMap { $0 })
    }

    /// What `gzip -d` (not zlib's inflate) makes of it: the format is gzip's own, header and trailer.
    @Test func systemGzipReadsIt() throws {
        let text = String(repeating: "id,identifier\nsub_1,abc\n", count: 500)
        let (bytes, _) = try Self.compress([Array(text.utf8)])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file.csv.gz")
        try Data(bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "gzip -dc '\(file.path)'"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: data, as: UTF8.self) == text)
    }

    @Test func corruptOrTruncatedInputIsAnError() throws {
        let (bytes, _) = try Self.compress([Array(String(repeating: "abc", count: 1000).utf8)])
        #expect(throws: GzipError.self) { try Gunzip.decompress(Array(bytes.prefix(bytes.count / 2))) }
        #expect(throws: GzipError.self) { try Gunzip.decompress([1, 2, 3, 4]) }
    }
}
