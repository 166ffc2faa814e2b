/// A validated filter array in OneSignal's language: an OR of groups, each group an AND of
/// conditions. `a, b, {"operator": "OR"}, c` is `(a AND b) OR c`.
package struct FilterExpression: Sendable, Equatable {
    /// Never empty, and no group is empty (the parser guarantees both).
    package var groups: [[FilterCondition]]

    package init(groups: [[FilterCondition]]) {
        self.groups = groups
    }
}

/// One test on a subscription. Each field carries only the tests that make sense for it, so
/// a compiler never meets a combination the parser refused.
package enum FilterCondition: Sendable, Equatable {
    case tag(key: String, TagTest)
    case language(TextTest)
    case country(TextTest)
    case appVersion(VersionTest)
    case sessionCount(NumberTest)
    /// `>` hours ago: the last session was more than that many hours ago; `<`: less.
    case lastSession(Comparison, hoursAgo: Double)
    case firstSession(Comparison, hoursAgo: Double)
}

/// `>` and `<`.
package enum Comparison: String, Sendable, Equatable {
    case greaterThan = ">"
    case lessThan = "<"
}

/// Tests on a text attribute. A subscription without the attribute (or with it empty) is
/// `!=` every value, `not_in_array` every list, and `not_exists`.
package enum TextTest: Sendable, Equatable {
    case equals(String)
    case notEquals(String)
    case exists
    case notExists
    case inArray([String])
    case notInArray([String])
}

package enum TagTest: Sendable, Equatable {
    case text(TextTest)
    /// The tag read as a number; a tag that is not a number never matches.
    case number(Comparison, Double)
    /// The tag read as a unix timestamp (seconds): `>` means more than `seconds` have passed
    /// since it (`time_elapsed_gt`), `<` less (`time_elapsed_lt`).
    case timeElapsed(Comparison, seconds: Double)
}

package enum VersionTest: Sendable, Equatable {
    case text(TextTest)
    /// Dotted numbers compared component by component (`1.10 > 1.9`); a stored version that is
    /// not dotted numbers never matches. The value is validated as `1`, `1.2`, `1.2.3`, ….
    case version(Comparison, String)
}

package enum NumberTest: Sendable, Equatable {
    case equals(Double)
    case notEquals(Double)
    case greaterThan(Double)
    case lessThan(Double)
}
