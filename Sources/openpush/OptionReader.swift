/// Reads `--flag value` and `--flag=value` options one at a time, for the simulator commands.
struct OptionReader {
    private var remaining: ArraySlice<String>
    /// The value written after `=` in the option just read, if any.
    private var inline: String?

    init(_ arguments: [String]) {
        remaining = arguments[...]
    }

    /// The next option's flag, or nil at the end.
    mutating func next() -> String? {
        guard let argument = remaining.popFirst() else { return nil }
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        inline = parts.count == 2 ? parts[1] : nil
        return parts[0]
    }

    /// The value of `flag`: after its `=`, or the next argument.
    mutating func value(_ flag: String) throws -> String {
        guard let value = inline ?? remaining.popFirst() else { throw CommandLineError(message: "\(flag) needs a value") }
        inline = nil
        return value
    }

    mutating func port(_ flag: String) throws -> UInt16 {
        let text = try value(flag)
        guard let port = UInt16(text) else { throw CommandLineError(message: "\(flag): '\(text)' is not a port number") }
        return port
    }
}
