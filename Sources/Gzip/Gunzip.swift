import CZlib

/// Decompresses gzip data read whole (the tests' and small callers' side of `GzipWriter`).
/// Concatenated gzip members are read one after another, as `gzip -d` does.
public enum Gunzip {
    public static func decompress(_ bytes: [UInt8]) throws(GzipError) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        var status = openpush_inflate_init_gzip(stream)
        guard status == Z_OK else { throw GzipError(code: status, message: "inflateInit2 failed") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        bytes.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = UInt32(input.count)
            buffer.withUnsafeMutableBufferPointer { out in
                while true {
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    status = inflate(stream, Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.pointee.avail_out))])
                    if status == Z_STREAM_END, stream.pointee.avail_in > 0 {
                        status = inflateReset(stream)
                        if status != Z_OK { return }
                        continue
                    }
                    if status != Z_OK { return }
                }
            }
        }
        guard status == Z_STREAM_END else {
            throw GzipError(code: status, message: status == Z_BUF_ERROR ? "truncated gzip data" : GzipWriter.message(stream))
        }
        return output
    }
}
