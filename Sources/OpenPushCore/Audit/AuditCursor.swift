/// Where a page of the audit log ends: the last entry shown (its time in microseconds and its
/// position, which breaks ties), and the time range's start, which a cursor carries so the next
/// call need not repeat it (OneSignal ignores `start_time` and `end_time` beside a cursor).
/// Opaque to callers: `<occurred µs>.<position>[.<start µs>]`.
package struct AuditCursor: Sendable, Equatable {
    package var occurredMicros: Int64
    package var position: Int64
    package var startMicros: Int64?

    package init(occurredMicros: Int64, position: Int64, startMicros: Int64?) {
        self.occurredMicros = occurredMicros
        self.position = position
        self.startMicros = startMicros
    }

    package var text: String {
        var text = "\(occurredMicros).\(position)"
        if let startMicros { text += ".\(startMicros)" }
        return text
    }

    package init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              let occurred = Int64(parts[0]), let position = Int64(parts[1]), position > 0 else { return nil }
        var start: Int64?
        if parts.count == 3 {
            guard let value = Int64(parts[2]) else { return nil }
            start = value
        }
        self.init(occurredMicros: occurred, position: position, startMicros: start)
    }
}
