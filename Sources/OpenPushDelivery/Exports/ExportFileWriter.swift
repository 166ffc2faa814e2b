import Gzip
import OpenPushCore
import Postgres

/// CSV lines in, gzip chunks stored as they fill: memory holds one page of lines and one chunk
/// of compressed bytes, whatever the file's length.
final class ExportFileWriter {
    private let job: ClaimedExport
    private let connection: PostgresConnection
    private let gzip: GzipWriter
    private var lines: [UInt8] = []
    private var compressed: [UInt8] = []
    private var position = 0
    private(set) var rows: Int64 = 0
    private var bytes: Int64 = 0

    init(job: ClaimedExport, connection: PostgresConnection) throws {
        self.job = job
        self.connection = connection
        gzip = try GzipWriter()
    }

    func header(_ columns: [String]) {
        lines.append(contentsOf: CSVLine.encode(columns).utf8)
    }

    func row(_ fields: [String]) {
        lines.append(contentsOf: CSVLine.encode(fields).utf8)
        rows += 1
    }

    /// After each page: compresses its lines, stores full chunks, and renews the lease when
    /// no chunk did (a page of small rows may not fill one).
    func endPage() throws {
        compressed += try gzip.write(lines)
        lines.removeAll(keepingCapacity: true)
        var stored = false
        while compressed.count >= ExportLimits.chunkBytes {
            let chunk = Array(compressed.prefix(ExportLimits.chunkBytes))
            compressed.removeFirst(ExportLimits.chunkBytes)
            try ExportStore.writeChunk(job, position: position, data: chunk, in: connection)
            position += 1
            bytes += Int64(chunk.count)
            stored = true
        }
        if !stored { try ExportStore.renew(job, in: connection) }
    }

    /// Compresses what is left, stores the last chunk and marks the file ready.
    func finish() throws {
        compressed += try gzip.write(lines)
        lines = []
        compressed += try gzip.finish()
        // Full chunks first, the rest (never empty: the gzip trailer is in it) with the completion.
        while compressed.count > ExportLimits.chunkBytes {
            let chunk = Array(compressed.prefix(ExportLimits.chunkBytes))
            compressed.removeFirst(ExportLimits.chunkBytes)
            try ExportStore.writeChunk(job, position: position, data: chunk, in: connection)
            position += 1
            bytes += Int64(chunk.count)
        }
        try ExportStore.complete(job, position: position, data: compressed, rows: rows, bytes: bytes + Int64(compressed.count),
                                 in: connection)
    }
}
