/// A small logging front-end: a value that carries metadata and forwards to one handler,
/// which the executable bootstraps. Functions take a `Logger`; they never make one.
package struct Logger: Sendable {
    package enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        package init?(name: String) {
            switch name.lowercased() {
            case "debug", "trace": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        package var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        package static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    package var label: String
    package var level: Level
    /// Dotted keys, e.g. `app.id`, `request.id`.
    package var metadata: [String: String]
    private let handler: any LogHandler

    package init(label: String, level: Level = .info, metadata: [String: String] = [:], handler: any LogHandler) {
        self.label = label
        self.level = level
        self.metadata = metadata
        self.handler = handler
    }

    /// A logger that drops everything, for tests and tools that do not log.
    package static func discarding(label: String = "openpush") -> Logger {
        Logger(label: label, level: .error, handler: DiscardingLogHandler())
    }

    package func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    package func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        guard level >= self.level else { return }
        handler.log(LogRecord(level: level, label: label, message: message(),
                              metadata: self.metadata.merging(metadata) { $1 }))
    }

    package func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.debug, message(), metadata) }
    package func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.info, message(), metadata) }
    package func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.warning, message(), metadata) }
    package func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.error, message(), metadata) }
}

package struct LogRecord: Sendable {
    package var level: Logger.Level
    package var label: String
    package var message: String
    package var metadata: [String: String]

    /// `level label: message key=value …`, keys sorted so lines are stable.
    package var formatted: String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return ([level.name, "\(label):", message] + fields).joined(separator: " ")
    }
}

package protocol LogHandler: Sendable {
    func log(_ record: LogRecord)
}

struct DiscardingLogHandler: LogHandler {
    func log(_ record: LogRecord) {}
}
