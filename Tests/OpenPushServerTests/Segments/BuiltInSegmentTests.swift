import Testing
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import Postgres

/// The built-in segments' definitions, without a database.
@Suite struct BuiltInSegmentTests {
    @Test func theTableNamesFourSegmentsAndTheirRules() {
        #expect(BuiltInSegment.allCases.map(\.name) == ["Subscribed Users", "All", "Active Users", "Inactive Users"])
        #expect(BuiltInSegment.subscribedUsers.rule == .everyone)
        #expect(BuiltInSegment.all.rule == BuiltInSegment.subscribedUsers.rule)
        #expect(BuiltInSegment.activeUsers.rule == .sessionWithin(hours: 168))
        #expect(BuiltInSegment.inactiveUsers.rule == .noSessionWithin(hours: 168))
    }

    @Test func namesResolveExactly() {
        #expect(BuiltInSegment(named: "All") == .all)
        #expect(BuiltInSegment(named: "Inactive Users") == .inactiveUsers)
        for name in ["all", "ALL", "Active users", " All", "Everyone"] {
            #expect(BuiltInSegment(named: name) == nil)
        }
    }

    @Test func activeIsLastSessionWithinTheWindowAndInactiveIsItsComplement() {
        let now = 1_800_000_000.0
        let active = BuiltInSegment.Rule.sessionWithin(hours: 168).condition(now: now)
        // Built from the filter language's `last_session < 168 hours ago`, so both agree.
        let filter = FilterSQL.condition(FilterExpression(groups: [[.lastSession(.lessThan, hoursAgo: 168)]]), now: now)
        #expect(filter.sql.contains(active.sql) && filter.binds == active.binds)
        #expect(active.sql.contains("s.last_session_at >") && active.binds.count == 1)
        let inactive = BuiltInSegment.Rule.noSessionWithin(hours: 168).condition(now: now)
        #expect(inactive == "NOT (" + active + ")")
        #expect(BuiltInSegment.Rule.everyone.condition(now: now) == "true")
    }
}
