import Synchronization
public import OpenPushCore

/// Keeps every log record so a test can assert what was logged.
public final class CapturingLogHandler: LogHandler {
    private let records = Mutex<[LogRecord]>([])

    public init() {}

    public func log(_ record: LogRecord) {
        records.withLock { $0.append(record) }
    }

    public var all: [LogRecord] { records.withLock { $0 } }
}
