/// Renders parsed nodes against a context. Missing variables are `nil`; output past
/// `LiquidTemplate.maximumOutputBytes` is cut. Every step draws from one `LiquidBudget`; a
/// template that exhausts it stops there, and the rendering says so.
struct LiquidRenderer {
    /// Whether rendering goes on, and how a loop body ended.
    enum Flow {
        case normal, breakLoop, continueLoop, halt
    }

    private let context: JSONObject
    /// `assign` and `capture` targets; they outlive the block that set them, as in Liquid.
    private var assigns: [String: JSONValue] = [:]
    /// Loop variables and `forloop`, innermost last.
    private var scopes: [Scope] = []

    /// One loop's variable and where the loop is; its `forloop` object is built only when read.
    private struct Scope {
        var variable: String
        var value: JSONValue = .null
        var step = 0
        var length: Int
    }
    private(set) var budget = LiquidBudget()
    /// Captures being rendered: the output cap is the text's, a capture is bounded by the budget.
    private var captures = 0

    init(context: JSONObject) {
        self.context = context
    }

    /// The whole output, cut at `LiquidTemplate.maximumOutputBytes` on a character boundary.
    mutating func render(_ nodes: [LiquidNode]) -> LiquidRendering {
        var output = ""
        _ = render(nodes, into: &output)
        let exceeded = budget.isExhausted
        guard output.utf8.count > LiquidTemplate.maximumOutputBytes else {
            return LiquidRendering(text: output, exceededBudget: exceeded, spent: budget)
        }
        var cut = ""
        for character in output {
            if cut.utf8.count + character.utf8.count > LiquidTemplate.maximumOutputBytes { break }
            cut.append(character)
        }
        return LiquidRendering(text: cut, exceededBudget: exceeded, spent: budget)
    }

    private mutating func render(_ nodes: [LiquidNode], into output: inout String) -> Flow {
        for node in nodes {
            let flow = render(node, into: &output)
            if flow != .normal { return flow }
            if captures == 0, output.utf8.count > LiquidTemplate.maximumOutputBytes { return .halt }
        }
        return .normal
    }

    private mutating func render(_ node: LiquidNode, into output: inout String) -> Flow {
        guard budget.charge() else { return .halt }
        switch node {
        case .text(let text):
            guard budget.charge(steps: 0, bytes: text.utf8.count) else { return .halt }
            output += text
        case .output(let value):
            guard let value = evaluate(value) else { return .halt }
            let text = value.liquidText
            guard budget.charge(steps: 0, bytes: text.utf8.count) else { return .halt }
            output += text
        case .conditional(let branches, let otherwise):
            for branch in branches {
                guard let taken = isTrue(branch.condition) else { return .halt }
                if taken { return render(branch.body, into: &output) }
            }
            if let otherwise { return render(otherwise, into: &output) }
        case .switchCase(let subject, let whens, let otherwise):
            var matched = false
            for when in whens {
                var matches = false
                for value in when.values {
                    guard let equal = equals(subject, value) else { return .halt }
                    if equal { matches = true; break }
                }
                guard matches else { continue }
                matched = true
                let flow = render(when.body, into: &output)
                if flow != .normal { return flow }
            }
            if !matched, let otherwise { return render(otherwise, into: &output) }
        case .loop(let loop):
            return render(loop, into: &output)
        case .assign(let name, let value):
            guard let value = evaluate(value) else { return .halt }
            assigns[name] = value
        case .capture(let name, let body):
            var captured = ""
            captures += 1
            let flow = render(body, into: &captured)
            captures -= 1
            assigns[name] = .string(captured)
            guard budget.charge(steps: 0, bytes: captured.utf8.count) else { return .halt }
            return flow
        case .breakLoop:
            return .breakLoop
        case .continueLoop:
            return .continueLoop
        }
        return .normal
    }

    private mutating func render(_ loop: LiquidNode.Loop, into output: inout String) -> Flow {
        let items = Items(evaluating: loop.collection, with: &self)
        // As in Liquid, the limit counts from the offset as written, even a negative one.
        let offset = loop.offset.map { evaluate($0).liquidInteger } ?? 0
        let start = min(max(offset, 0), items.count)
        var end = items.count
        if let limit = loop.limit {
            end = min(max(offset + evaluate(limit).liquidInteger, start), items.count)
        }
        guard !budget.isExhausted else { return .halt }
        let length = end - start
        guard length > 0 else {
            return loop.otherwise.map { render($0, into: &output) } ?? .normal
        }
        scopes.append(Scope(variable: loop.variable, length: length))
        defer { scopes.removeLast() }
        for step in 0..<length {
            guard budget.charge(steps: Self.iterationSteps) else { return .halt }
            let position = loop.reversed ? end - 1 - step : start + step
            scopes[scopes.count - 1].value = items[position]
            scopes[scopes.count - 1].step = step
            switch render(loop.body, into: &output) {
            case .normal, .continueLoop: continue
            case .breakLoop: return .normal
            case .halt: return .halt
            }
        }
        return .normal
    }

    /// What `for` iterates: an array, an object's `[key, value]` pairs, a non-empty string
    /// once, or a range without building it.
    private struct Items {
        private enum Storage {
            case values([JSONValue])
            case range(Int)
        }

        private let storage: Storage
        let count: Int

        init(evaluating expression: LiquidExpression, with renderer: inout LiquidRenderer) {
            if case .range(let lower, let upper) = expression {
                let first = renderer.evaluate(lower).liquidInteger, last = renderer.evaluate(upper).liquidInteger
                storage = .range(first)
                count = max(last - first + 1, 0)
                return
            }
            let values: [JSONValue]
            switch renderer.evaluate(expression) {
            case .array(let array): values = array
            case .object(let object):
                renderer.budget.charge(steps: LiquidRenderer.elementSteps * object.count)
                values = object.map { .array([.string($0.key), $0.value]) }
            case .string(let string) where !string.isEmpty: values = [.string(string)]
            default: values = []
            }
            storage = .values(values)
            count = values.count
        }

        subscript(position: Int) -> JSONValue {
            switch storage {
            case .values(let values): values[position]
            case .range(let first): .int(Int64(first + position))
            }
        }
    }

    // MARK: - Values

    /// Steps of one loop iteration: the iteration itself and binding its variable.
    static let iterationSteps = 2
    /// Steps of building one `forloop` object when a template reads it whole: its values.
    static let forloopSteps = 8
    /// What walking one byte by characters costs (grapheme breaking, case mapping), in bytes
    /// copied: `size`, `upcase`, `strip`, `split: ""`… are that much slower per byte.
    static let characterWalkCost = 32
    /// Steps of each element `split` makes (a string and its value) and each `[key, value]`
    /// pair a loop over an object makes.
    static let elementSteps = 3

    /// The value with its filters applied; `nil` when the budget ran out. A filter is charged
    /// its input, its arguments and its result: each is read or built once.
    private mutating func evaluate(_ filtered: LiquidFilteredExpression) -> JSONValue? {
        var value = evaluate(filtered.expression)
        for call in filtered.filters {
            let arguments = call.arguments.map { evaluate($0) }
            let named = call.namedArguments.mapValues { evaluate($0) }
            guard budget.charge(reading: value) else { return nil }
            for argument in arguments {
                guard budget.charge(reading: argument) else { return nil }
            }
            if call.filter.walksCharacters(input: value, arguments: arguments) {
                guard budget.charge(steps: 0, bytes: value.liquidText.utf8.count * (Self.characterWalkCost - 1)) else { return nil }
            }
            value = call.filter.apply(to: value, arguments: arguments, named: named, limit: budget.bytesLeft,
                                      elements: (budget.stepsLeft + 1) / Self.elementSteps + 1)
            if call.filter == .split, case .array(let pieces) = value {
                guard budget.charge(steps: (Self.elementSteps - 1) * pieces.count) else { return nil }
            }
            guard budget.charge(reading: value) else { return nil }
        }
        return value
    }

    /// The expression's value, one step for it and one for each accessor.
    private mutating func evaluate(_ expression: LiquidExpression) -> JSONValue {
        budget.charge()
        switch expression {
        case .literal(let value):
            return value
        case .empty, .blank:
            return .string("")
        case .range(let lower, let upper):
            return .string("\(evaluate(lower).liquidInteger)..\(evaluate(upper).liquidInteger)")
        case .lookup(let accessors):
            var value = JSONValue.null
            var start = 0
            if let known = forloopProperty(accessors) {
                value = known.value
                start = known.used
            }
            for (position, accessor) in accessors.enumerated() where position >= start {
                switch accessor {
                case .property(let name) where position == 0:
                    value = variable(name)
                case .subscripted(let key) where position == 0:
                    guard case .string(let name) = evaluate(key) else { return .null }
                    value = variable(name)
                case .property(let name):
                    // `size` of a string counts its characters: it walks every one.
                    if name == "size", case .string(let string) = value {
                        budget.charge(bytes: string.utf8.count * Self.characterWalkCost)
                    }
                    value = Self.property(name, of: value)
                case .subscripted(let key):
                    value = Self.element(evaluate(key), of: value)
                }
                budget.charge()
                if value == .null { return .null }
            }
            return value
        }
    }

    private mutating func variable(_ name: String) -> JSONValue {
        for index in scopes.indices.reversed() {
            if scopes[index].variable == name { return scopes[index].value }
            if name == "forloop" { return .object(forloop(at: index)) }
        }
        return assigns[name] ?? context[name] ?? .null
    }

    /// `forloop.index`, `forloop.parentloop.first`…: read from the loop's state, without building
    /// its object (which costs more than the rest of an iteration); `used` accessors read.
    private func forloopProperty(_ accessors: [LiquidExpression.Accessor]) -> (value: JSONValue, used: Int)? {
        guard case .property("forloop")? = accessors.first, var index = scopes.indices.last,
            !scopes.contains(where: { $0.variable == "forloop" })
        else { return nil }
        var position = 1
        while position < accessors.count, case .property("parentloop") = accessors[position] {
            guard index > 0 else { return nil }
            index -= 1
            position += 1
        }
        guard position < accessors.count, case .property(let name) = accessors[position] else { return nil }
        let step = scopes[index].step, length = scopes[index].length
        let value: JSONValue
        switch name {
        case "length": value = .int(Int64(length))
        case "index": value = .int(Int64(step + 1))
        case "index0": value = .int(Int64(step))
        case "rindex": value = .int(Int64(length - step))
        case "rindex0": value = .int(Int64(length - step - 1))
        case "first": value = .bool(step == 0)
        case "last": value = .bool(step == length - 1)
        default: return nil
        }
        return (value, position + 1)
    }

    /// `forloop` of the loop at `index` of `scopes`, with its enclosing loop's as `parentloop`.
    private mutating func forloop(at index: Int) -> JSONObject {
        budget.charge(steps: Self.forloopSteps)
        let scope = scopes[index], step = scope.step, length = scope.length
        var forloop: JSONObject = [
            "length": .int(Int64(length)),
            "index": .int(Int64(step + 1)), "index0": .int(Int64(step)),
            "rindex": .int(Int64(length - step)), "rindex0": .int(Int64(length - step - 1)),
            "first": .bool(step == 0), "last": .bool(step == length - 1),
        ]
        if index > 0 { forloop["parentloop"] = .object(self.forloop(at: index - 1)) }
        return forloop
    }

    /// `.name`: an object's key, or `size`, `first` and `last` of arrays and strings (and
    /// `size` of an object without such a key).
    private static func property(_ name: String, of value: JSONValue) -> JSONValue {
        switch (value, name) {
        case (.object(let object), _):
            if let found = object[name] { return found }
            return name == "size" ? .int(Int64(object.count)) : .null
        case (.array(let array), "size"): return .int(Int64(array.count))
        case (.array(let array), "first"): return array.first ?? .null
        case (.array(let array), "last"): return array.last ?? .null
        case (.string(let string), "size"): return .int(Int64(string.count))
        case (.string(let string), "first"): return string.first.map { .string(String($0)) } ?? .null
        case (.string(let string), "last"): return string.last.map { .string(String($0)) } ?? .null
        default: return .null
        }
    }

    /// `[key]`: an array index (negative counts from the end) or an object key.
    private static func element(_ key: JSONValue, of value: JSONValue) -> JSONValue {
        switch (value, key) {
        case (.array(let array), .int), (.array(let array), .double):
            guard let index = key.intValue else { return .null }
            let position = index < 0 ? Int64(array.count) + index : index
            return array.indices.contains(Int(clamping: position)) ? array[Int(position)] : .null
        case (.object(let object), .string(let name)):
            return object[name] ?? .null
        default:
            return .null
        }
    }

    // MARK: - Conditions

    /// Whether the condition holds; `nil` when the budget ran out deciding it.
    private mutating func isTrue(_ condition: LiquidCondition) -> Bool? {
        guard budget.charge() else { return nil }
        switch condition {
        case .value(.empty), .value(.blank):
            return true
        case .value(let expression):
            return evaluate(expression).isLiquidTruthy
        case .comparison(let left, let op, let right):
            switch op {
            case .equal: return equals(left, right)
            case .notEqual: return equals(left, right).map { !$0 }
            case .contains:
                let haystack = evaluate(left), needle = evaluate(right)
                guard budget.charge(reading: haystack), budget.charge(reading: needle) else { return nil }
                return haystack.liquidContains(needle)
            case .less, .greater, .lessOrEqual, .greaterOrEqual:
                guard !Self.isKeyword(left), !Self.isKeyword(right) else { return false }
                let lhs = evaluate(left), rhs = evaluate(right)
                guard budget.charge(reading: lhs), budget.charge(reading: rhs) else { return nil }
                guard let order = lhs.liquidCompare(rhs) else { return false }
                switch op {
                case .less: return order < 0
                case .greater: return order > 0
                case .lessOrEqual: return order <= 0
                default: return order >= 0
                }
            }
        case .chain(let first, let steps):
            // From the right: `a or b and c` is `a or (b and c)`.
            guard var result = isTrue(steps[steps.count - 1].condition) else { return nil }
            for index in stride(from: steps.count - 1, through: 0, by: -1) {
                let left = index == 0 ? first : steps[index - 1].condition
                // Short-circuits as `&&` and `||` did: the left side is evaluated only when needed.
                if steps[index].isAnd ? result : !result {
                    guard let value = isTrue(left) else { return nil }
                    result = value
                }
            }
            return result
        case .not(let inner):
            return isTrue(inner).map { !$0 }
        }
    }

    /// `==`, with `empty` and `blank` comparing by what they mean; `nil` when the budget ran out.
    private mutating func equals(_ left: LiquidExpression, _ right: LiquidExpression) -> Bool? {
        switch (left, right) {
        case (.empty, .empty), (.blank, .blank), (.empty, .blank), (.blank, .empty): return true
        case (.empty, let other), (let other, .empty): return evaluate(other).isLiquidEmpty
        case (.blank, let other), (let other, .blank):
            let value = evaluate(other)
            guard budget.charge(reading: value) else { return nil }
            return value.isLiquidBlank
        default:
            let lhs = evaluate(left), rhs = evaluate(right)
            guard budget.charge(reading: lhs), budget.charge(reading: rhs) else { return nil }
            return lhs.liquidEquals(rhs)
        }
    }

    private static func isKeyword(_ expression: LiquidExpression) -> Bool {
        expression == .empty || expression == .blank
    }
}
