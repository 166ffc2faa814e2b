import Synchronization
package import OpenPushCore

/// Keeps every log record so a test can assert what was logged.
package final class CapturingLogHandler: LogHandler {
    private let records = Mutex<[LogRecord]>([])

    package init() {}

    package func log(_ record: LogRecord) {
        records.withLock { $0.append(record) }
    }

    package var all: [LogRecord] { records.withLock { $0 } }
}
