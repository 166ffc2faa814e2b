import Foundation
public import OpenPushCore
import OpenPushDelivery

/// Writes one line per record to standard error, with a UTC timestamp.
public struct StandardErrorLogHandler: LogHandler {
    public init() {}

    public func log(_ record: LogRecord) {
        let line = "\(Self.timestamp()) \(record.formatted)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func timestamp() -> String {
        Date.now.formatted(.iso8601)
    }
}
