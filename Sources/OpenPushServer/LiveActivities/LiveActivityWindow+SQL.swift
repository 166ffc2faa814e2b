package import OpenPushCore
import OpenPushDelivery
package import Postgres

extension LiveActivityWindow {
    /// The SQL form of `selects(_:startedAt:endedAt:now:)` over `live_activities` aliased `la`:
    /// open, and started less than the event's span before `now`. `now` is bound, never
    /// PostgreSQL's clock, so both forms agree on the boundary.
    package static func selectable(_ event: LiveActivityEvent, now: Double) -> PostgresQuery {
        "la.ended_at IS NULL AND la.started_at > to_timestamp(\(now - span(for: event)))"
    }
}
