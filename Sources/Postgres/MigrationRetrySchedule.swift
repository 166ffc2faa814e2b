/// Pauses between tries of a migration whose lock stayed busy: 1 s doubling to 30 s, so ten
/// tries wait about three minutes in all for the requests that hold the table to finish.
public struct MigrationRetrySchedule: Sendable {
    public var first: Duration
    public var longest: Duration

    private var current: Duration?

    public init(first: Duration = .seconds(1), longest: Duration = .seconds(30)) {
        self.first = first
        self.longest = longest
    }

    public mutating func next() -> Duration {
        let pause = current ?? first
        current = min(pause * 2, longest)
        return pause
    }
}
