/// A small logging front-end: a value that carries metadata and forwards to one handler,
/// which the executable bootstraps. Functions take a `Logger`; they never make one.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public init?(name: String) {
            switch name.lowercased() {
            case "debug", "trace": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var label: String
    public var level: Level
    /// Dotted keys, e.g. `app.id`, `request.id`.
    public var metadata: [String: String]
    private let handler: any LogHandler

    public init(label: String, level: Level = .info, metadata: [String: String] = [:], handler: any LogHandler) {
        self.label = label
        self.level = level
        self.metadata = metadata
        self.handler = handler
    }

    /// A logger that drops everything, for tests and tools that do not log.
    public static func discarding(label: String = "openpush") -> Logger {
        Logger(label: label, level: .error, handler: DiscardingLogHandler())
    }

    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        guard level >= self.level else { return }
        handler.log(LogRecord(level: level, label: label, message: message(),
                              metadata: self.metadata.merging(metadata) { $1 }))
    }

    public func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.debug, message(), metadata) }
    public func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.info, message(), metadata) }
    public func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.warning, message(), metadata) }
    public func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) { log(.error, message(), metadata) }
}

public struct LogRecord: Sendable {
    public var level: Logger.Level
    public var label: String
    public var message: String
    public var metadata: [String: String]

    /// `level label: message key=value …`, keys sorted so lines are stable.
    public var formatted: String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return ([level.name, "\(label):", message] + fields).joined(separator: " ")
    }
}

public protocol LogHandler: Sendable {
    func log(_ record: LogRecord)
}

struct DiscardingLogHandler: LogHandler {
    func log(_ record: LogRecord) {}
}
