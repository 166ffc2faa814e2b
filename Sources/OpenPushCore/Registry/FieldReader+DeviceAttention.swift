/// The device preferences of a subscription that delivery policy reads: `quiet_hours` and
/// `muted_threads`, taken by the `/v1` registration and the REST `PATCH` alike.
extension FieldReader {
    package enum DeviceAttentionMessages {
        package static let quietHoursShape = #"quiet_hours must be an object {"start": "HH:MM", "end": "HH:MM"} or null"#
        package static func time(_ field: String) -> String { #"quiet_hours.\#(field) must be a time "HH:MM" from 00:00 to 23:59"# }
        package static let emptyWindow = "quiet_hours.start and quiet_hours.end must differ"
        package static let mutedThreadsShape = "muted_threads must be an array of strings or null"
        package static let tooManyMutedThreads =
            "muted_threads must hold at most \(MutedThreads.maximumCount) thread ids"
        package static func mutedThreadLength(_ index: Int) -> String {
            "muted_threads[\(index)] must be 1 to \(MutedThreads.maximumLength) characters"
        }
    }

    /// `quiet_hours`: absent keeps the device's, `null` clears them, `{"start", "end"}` sets them.
    package mutating func quietHoursChange() -> FieldChange<QuietHoursWindow> {
        change("quiet_hours") { reader in reader.quietHoursWindow() }
    }

    private mutating func quietHoursWindow() -> QuietHoursWindow? {
        guard case .object(let object)? = value("quiet_hours") else {
            let got = object["quiet_hours"].map { ", got \($0.typeName)" } ?? ""
            problem(DeviceAttentionMessages.quietHoursShape + got)
            return nil
        }
        func minutes(_ field: String) -> Int? {
            switch object[field] {
            case nil, .null?:
                problem("quiet_hours.\(field) is required")
                return nil
            case .string(let text)?:
                guard let minutes = QuietHoursWindow.minutes(text) else {
                    problem(DeviceAttentionMessages.time(field))
                    return nil
                }
                return minutes
            case let other?:
                problem(DeviceAttentionMessages.time(field) + ", got \(other.typeName)")
                return nil
            }
        }
        let start = minutes("start")
        let end = minutes("end")
        var clean = true
        for key in object.keys where key != "start" && key != "end" {
            problem("unknown field 'quiet_hours.\(key)'")
            clean = false
        }
        guard let start, let end, clean else { return nil }
        guard let window = QuietHoursWindow(start: start, end: end) else {
            problem(DeviceAttentionMessages.emptyWindow)
            return nil
        }
        return window
    }

    /// `muted_threads`: absent keeps the device's list, an array replaces it (duplicates once,
    /// in the order sent), `null` or `[]` clears it.
    package mutating func mutedThreadsChange() -> [String]? {
        switch value("muted_threads") {
        case nil:
            return nil
        case .null?:
            return []
        case .array(let items)?:
            guard items.count <= MutedThreads.maximumCount else {
                problem(DeviceAttentionMessages.tooManyMutedThreads)
                return nil
            }
            var threads: [String] = []
            var seen: Set<String> = []
            var clean = true
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    problem("muted_threads[\(index)] must be a string, got \(item.typeName)")
                    clean = false
                    continue
                }
                guard (1...MutedThreads.maximumLength).contains(text.count) else {
                    problem(DeviceAttentionMessages.mutedThreadLength(index))
                    clean = false
                    continue
                }
                if seen.insert(text).inserted { threads.append(text) }
            }
            return clean ? threads : nil
        case let other?:
            problem(DeviceAttentionMessages.mutedThreadsShape + ", got \(other.typeName)")
            return nil
        }
    }
}
