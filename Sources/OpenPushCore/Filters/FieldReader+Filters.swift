extension FieldReader {
    /// A filter array, validated; each problem is recorded under `key` (`filters[1]: …`).
    package mutating func filters(_ key: String, required: Bool = false) -> FilterExpression? {
        switch value(key) {
        case nil, .null?:
            if required { problem("\(key) is required") }
            return nil
        case let raw?:
            switch FilterParser.parse(raw, name: key) {
            case .success(let expression):
                return expression
            case .failure(let found):
                found.messages.forEach { problem($0) }
                return nil
            }
        }
    }
}
