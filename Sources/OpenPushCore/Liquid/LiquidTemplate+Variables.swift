extension LiquidTemplate {
    /// The top-level names a render can read from its context (`first_name` in
    /// `{{ first_name | default: "there" }}`, `subscription` in `{{ subscription.language }}`),
    /// or nil when a lookup's first name is itself computed (`{{ [key] }}`), so any name may be
    /// read. Names a template assigns or loops over count too: a superset is safe, since two
    /// contexts equal on these names render the same text.
    package var variables: Set<String>? {
        var names: Set<String> = []
        return LiquidVariables.collect(nodes, into: &names) ? names : nil
    }

    /// What several texts can read together: every name any reads, nil when one may read any.
    static func variables(of each: some Sequence<Set<String>?>) -> Set<String>? {
        each.reduce(Set<String>?.some([])) { names, more in
            guard let names, let more else { return nil }
            return names.union(more)
        }
    }
}

/// The walk behind `LiquidTemplate.variables`; each function returns false when a root name is
/// computed.
private enum LiquidVariables {
    static func collect(_ nodes: [LiquidNode], into names: inout Set<String>) -> Bool {
        nodes.allSatisfy { collect($0, into: &names) }
    }

    static func collect(_ node: LiquidNode, into names: inout Set<String>) -> Bool {
        switch node {
        case .text, .breakLoop, .continueLoop:
            return true
        case .output(let value), .assign(_, let value):
            return collect(value, into: &names)
        case .conditional(let branches, let otherwise):
            return branches.allSatisfy { collect($0.condition, into: &names) && collect($0.body, into: &names) }
                && collect(otherwise ?? [], into: &names)
        case .switchCase(let subject, let whens, let otherwise):
            return collect(subject, into: &names)
                && whens.allSatisfy { $0.values.allSatisfy { collect($0, into: &names) } && collect($0.body, into: &names) }
                && collect(otherwise ?? [], into: &names)
        case .loop(let loop):
            return collect(loop.collection, into: &names)
                && [loop.limit, loop.offset].allSatisfy { $0.map { collect($0, into: &names) } ?? true }
                && collect(loop.body, into: &names) && collect(loop.otherwise ?? [], into: &names)
        case .capture(_, let body):
            return collect(body, into: &names)
        }
    }

    static func collect(_ value: LiquidFilteredExpression, into names: inout Set<String>) -> Bool {
        collect(value.expression, into: &names)
            && value.filters.allSatisfy { call in
                call.arguments.allSatisfy { collect($0, into: &names) }
                    && call.namedArguments.values.allSatisfy { collect($0, into: &names) }
            }
    }

    static func collect(_ condition: LiquidCondition, into names: inout Set<String>) -> Bool {
        switch condition {
        case .value(let expression):
            return collect(expression, into: &names)
        case .comparison(let left, _, let right):
            return collect(left, into: &names) && collect(right, into: &names)
        case .chain(let first, let steps):
            return collect(first, into: &names) && steps.allSatisfy { collect($0.condition, into: &names) }
        case .not(let inner):
            return collect(inner, into: &names)
        }
    }

    static func collect(_ expression: LiquidExpression, into names: inout Set<String>) -> Bool {
        switch expression {
        case .literal, .empty, .blank:
            return true
        case .range(let low, let high):
            return collect(low, into: &names) && collect(high, into: &names)
        case .lookup(let accessors):
            guard let first = accessors.first else { return true }
            switch first {
            case .property(let name):
                names.insert(name)
            case .subscripted(.literal(.string(let name))):
                names.insert(name)
            case .subscripted:
                return false
            }
            // Later subscripts are expressions of their own: `a[b]` reads `b` too.
            for case .subscripted(let key) in accessors.dropFirst() where !collect(key, into: &names) { return false }
            return true
        }
    }
}
