/// What one rendered text may spend. Every evaluation step draws from it: a node rendered, a
/// loop iteration (and the `forloop` it builds), a filter applied, a comparison, an array element
/// made; and every byte a step touches: the bytes a comparison reads, a filter's input, arguments
/// and result, the bytes written to the output. When either runs out, rendering stops and says so
/// (`LiquidRendering.exceededBudget`): the text is not sent.
///
/// Sized so that a real push's template spends a few percent of it, and so that exhausting it
/// costs a few milliseconds of CPU whatever the template does.
package struct LiquidBudget: Sendable, Equatable {
    /// Evaluation steps per rendered text.
    package static let maximumSteps = 100_000
    /// Bytes read, copied or written per rendered text.
    package static let maximumBytes = 1024 * 1024

    /// What was spent so far.
    package private(set) var steps = 0
    package private(set) var bytes = 0

    package init() {}

    /// A text whose rendering exhausted its budget: its recipient is not sent to.
    package struct Exceeded: Error, Sendable, Equatable {
        package init() {}
    }

    package var isExhausted: Bool { steps > Self.maximumSteps || bytes > Self.maximumBytes }

    /// Bytes still to spend: what a step that builds a string may build before it stops early.
    var bytesLeft: Int { max(Self.maximumBytes - bytes, 0) }
    /// Steps still to take: what a step that makes elements may make before it stops early.
    var stepsLeft: Int { max(Self.maximumSteps - steps, 0) }

    /// Charges `steps` and `bytes`; false once the budget is exhausted.
    @discardableResult
    mutating func charge(steps: Int = 1, bytes: Int = 0) -> Bool {
        self.steps += steps
        self.bytes += bytes
        return !isExhausted
    }

    /// Charges what reading (or copying) `value` costs: its bytes, or its elements and theirs.
    @discardableResult
    mutating func charge(reading value: JSONValue) -> Bool {
        let cost = Self.cost(of: value)
        return charge(steps: cost.steps, bytes: cost.bytes)
    }

    /// The steps (elements) and bytes of a value, as a copy or a comparison would touch them.
    static func cost(of value: JSONValue) -> (steps: Int, bytes: Int) {
        switch value {
        case .null, .bool, .int, .double:
            return (0, 0)
        case .string(let string):
            return (0, string.utf8.count)
        case .array(let array):
            var total = (steps: array.count, bytes: 0)
            for element in array {
                let cost = cost(of: element)
                total.steps += cost.steps
                total.bytes += cost.bytes
            }
            return total
        case .object(let object):
            var total = (steps: object.count, bytes: 0)
            for (key, element) in object {
                let cost = cost(of: element)
                total.steps += cost.steps
                total.bytes += key.utf8.count + cost.bytes
            }
            return total
        }
    }
}
