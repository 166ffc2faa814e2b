/// A zlib call that failed, with zlib's return code and message.
public struct GzipError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int32
    public var message: String

    public var description: String { "zlib error \(code): \(message)" }
}
