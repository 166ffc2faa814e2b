import Foundation
package import OpenPushCore
import OpenPushDelivery

/// Writes one line per record to standard error, with a UTC timestamp.
package struct StandardErrorLogHandler: LogHandler {
    package init() {}

    package func log(_ record: LogRecord) {
        let line = "\(Self.timestamp()) \(record.formatted)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func timestamp() -> String {
        Date.now.formatted(.iso8601)
    }
}
