/// `GET /apps/{app_id}/outcomes`' query, validated: the names asked for, the window, the
/// platforms and the attribution. Every problem is reported in one `InvalidInput`.
package struct OutcomeQuery: Sendable, Equatable {
    /// `outcome_time_range`: OneSignal documents `1h`, `1d` and `1mo`; `30d` is the same month.
    package enum TimeRange: String, Sendable, CaseIterable {
        case hour = "1h"
        case day = "1d"
        case month = "1mo"
        case thirtyDays = "30d"

        package var seconds: Double {
            switch self {
            case .hour: 3600
            case .day: 86_400
            case .month, .thirtyDays: 30 * 86_400
            }
        }
    }

    /// `outcome_attribution`; `total` (the default) adds the other three.
    package enum Attribution: String, Sendable, CaseIterable {
        case direct
        case influenced
        case unattributed
        case total
    }

    /// How an outcome record is attributed when it is stored.
    package enum RecordedAttribution: String, Sendable, CaseIterable {
        case direct
        case unattributed

        package func matches(_ asked: Attribution) -> Bool {
            asked == .total || asked.rawValue == rawValue
        }
    }

    /// The OneSignal device types OpenPush's platforms are (`outcome_platforms`): iOS (0) holds
    /// iOS and watchOS devices, Android (1) the Android devices, macOS (9) the Macs. Any other
    /// type is valid and matches nobody.
    package static let platformsByDeviceType: [Int: [String]] = [0: ["ios", "watchos"], 1: ["android"], 9: ["macos"]]
    package static let deviceTypes: ClosedRange<Int> = 0...14

    package var names: [OutcomeName]
    package var range: TimeRange
    /// The subscription platforms asked for; nil for every platform.
    package var platforms: [String]?
    package var attribution: Attribution

    /// `outcome_names` is comma-separated; `outcome_names[]` is one name that may hold commas.
    package static func parse(_ query: [String: String]) -> Result<OutcomeQuery, InvalidInput> {
        var problems: [String] = []
        var texts = (query["outcome_names"] ?? "").split(separator: ",", omittingEmptySubsequences: true).map {
            String($0).trimmingSpaces
        }.filter { !$0.isEmpty }
        if let single = query["outcome_names[]"], !single.isEmpty { texts.append(single) }
        var names: [OutcomeName] = []
        if texts.isEmpty {
            problems.append("outcome_names is required")
        } else if texts.count > OutcomeLimits.maximumNamesPerQuery {
            problems.append("outcome_names: at most \(OutcomeLimits.maximumNamesPerQuery) names")
        } else {
            for text in texts {
                switch OutcomeName.parse(text) {
                case .success(let name):
                    if let problem = builtInProblem(name) { problems.append(problem) } else if !names.contains(name) {
                        names.append(name)
                    }
                case .failure(let invalid): problems += invalid.messages
                }
            }
        }
        var range = TimeRange.hour
        if let text = query["outcome_time_range"] {
            if let value = TimeRange(rawValue: text) { range = value } else {
                problems.append("outcome_time_range must be one of: 1h, 1d, 1mo, 30d")
            }
        }
        var platforms: [String]?
        if let text = query["outcome_platforms"], !text.isEmpty {
            var chosen: [String] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let type = Int(String(item).trimmingSpaces), deviceTypes.contains(type) else {
                    problems.append("outcome_platforms must be comma-separated device types from 0 to \(deviceTypes.upperBound)")
                    break
                }
                for platform in platformsByDeviceType[type] ?? [] where !chosen.contains(platform) { chosen.append(platform) }
            }
            platforms = chosen
        }
        var attribution = Attribution.total
        if let text = query["outcome_attribution"] {
            if let value = Attribution(rawValue: text) { attribution = value } else {
                problems.append("outcome_attribution must be one of: direct, influenced, unattributed, total")
            }
        }
        guard problems.isEmpty else { return .failure(InvalidInput(problems)) }
        return .success(OutcomeQuery(names: names, range: range, platforms: platforms, attribution: attribution))
    }

    /// OpenPush records two of OneSignal's own outcomes, and counts them only.
    package enum BuiltIn: String, Sendable, CaseIterable {
        /// A device's first tap on a notification (direct).
        case click = "os__click"
        /// A session: a device that registered (opened the app) in the window (unattributed).
        case sessionCount = "os__session_count"
    }

    static func builtInProblem(_ name: OutcomeName) -> String? {
        guard name.name.hasPrefix(OutcomeName.builtInPrefix) else { return nil }
        guard BuiltIn(rawValue: name.name) != nil else {
            return "outcome '\(name.name)' is not recorded by OpenPush (it records os__click and os__session_count)"
        }
        guard name.aggregation == .count else { return "outcome '\(name.name)' supports only .count" }
        return nil
    }

    /// The first hour bucket the window reads: the window's start, down to its hour (outcomes
    /// are added up per hour, so `1h` reads the current and the previous hour's buckets).
    package func firstHour(now: Double) -> Double {
        let start = now - range.seconds
        return (start / 3600).rounded(.down) * 3600
    }

    package func windowStart(now: Double) -> Double { now - range.seconds }
}

extension OutcomeQuery.Attribution {
    /// Whether records attributed `recorded` count toward this attribution.
    package func includes(_ recorded: OutcomeQuery.RecordedAttribution) -> Bool { recorded.matches(self) }
}
