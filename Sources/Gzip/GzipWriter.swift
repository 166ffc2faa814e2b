import CZlib

/// Compresses a stream into the gzip format (RFC 1952) as it is written: each `write` returns
/// the compressed bytes zlib has ready, `finish` the rest and the trailer. Memory stays at
/// zlib's window whatever the input's length, so a caller can store output as it comes.
///
/// zlib keeps a pointer back to its `z_stream`, so the stream lives at a fixed address
/// allocated here and freed in `deinit`.
public final class GzipWriter {
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false
    /// zlib's output goes here before being copied out.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// `level`: 1 (fastest) to 9 (smallest); 6 is zlib's default balance.
    public init(level: Int32 = 6) throws(GzipError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = openpush_deflate_init_gzip(stream, level)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw GzipError(code: status, message: "deflateInit2 failed")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `bytes`; returns what zlib has ready (often nothing: it fills a block first).
    public func write(_ bytes: [UInt8]) throws(GzipError) -> [UInt8] {
        precondition(!finished, "GzipWriter.write after finish")
        if bytes.isEmpty { return [] }
        return try run(bytes, flush: Z_NO_FLUSH)
    }

    /// Ends the stream: the last compressed bytes and the gzip trailer (CRC-32, length).
    public func finish() throws(GzipError) -> [UInt8] {
        precondition(!finished, "GzipWriter.finish twice")
        finished = true
        return try run([], flush: Z_FINISH)
    }

    private func run(_ input: [UInt8], flush: Int32) throws(GzipError) -> [UInt8] {
        var output: [UInt8] = []
        var status: Int32 = Z_OK
        input.withUnsafeBufferPointer { inputBytes in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBytes.baseAddress)
            stream.pointee.avail_in = UInt32(inputBytes.count)
            buffer.withUnsafeMutableBufferPointer { out in
                repeat {
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    status = deflate(stream, flush)
                    let produced = out.count - Int(stream.pointee.avail_out)
                    output.append(contentsOf: out[0..<produced])
                    // Z_BUF_ERROR only says no progress was possible, which ends the loop below.
                } while (status == Z_OK && (stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0
                                             || flush == Z_FINISH))
            }
            stream.pointee.next_in = nil
        }
        let done = flush == Z_FINISH ? status == Z_STREAM_END : (status == Z_OK || status == Z_BUF_ERROR)
        guard done else { throw GzipError(code: status, message: Self.message(stream)) }
        return output
    }

    static func message(_ stream: UnsafeMutablePointer<z_stream>) -> String {
        stream.pointee.msg.map { String(cString: $0) } ?? "no message"
    }
}
