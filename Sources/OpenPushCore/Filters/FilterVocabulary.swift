/// The words of the filter language: which fields exist and which relations each accepts.
package enum FilterField: String, Sendable, CaseIterable {
    case tag
    case language
    case country
    case appVersion = "app_version"
    case sessionCount = "session_count"
    case lastSession = "last_session"
    case firstSession = "first_session"

    /// The relations that mean something for this field, in the order error messages list them.
    package var relations: [FilterRelation] {
        let text: [FilterRelation] = [.equals, .notEquals, .exists, .notExists, .inArray, .notInArray]
        switch self {
        case .tag: return FilterRelation.allCases
        case .language, .country: return text
        case .appVersion: return [.equals, .notEquals, .greaterThan, .lessThan, .exists, .notExists, .inArray, .notInArray]
        case .sessionCount: return [.equals, .notEquals, .greaterThan, .lessThan]
        case .lastSession, .firstSession: return [.greaterThan, .lessThan]
        }
    }
}

package enum FilterRelation: String, Sendable, CaseIterable {
    case equals = "="
    case notEquals = "!="
    case greaterThan = ">"
    case lessThan = "<"
    case exists
    case notExists = "not_exists"
    case timeElapsedGreaterThan = "time_elapsed_gt"
    case timeElapsedLessThan = "time_elapsed_lt"
    case inArray = "in_array"
    case notInArray = "not_in_array"
}
