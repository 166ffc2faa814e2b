/// Routes by path template, e.g. `/v1/apps/{app_id}/live-activities/{activity_id}/end`.
///
/// A segment trie: literal children are tried before the parameter child at the same
/// position, with backtracking, so `/x/push-to-start/remove` wins over `/x/{id}/remove`
/// while `/x/push-to-start/end` can still reach `/x/{id}/end`.
package struct Router<Handler: Sendable>: Sendable {
    private struct Endpoint: Sendable {
        var handler: Handler
        var template: String
        /// Parameter names in the order their segments appear.
        var parameterNames: [String]
    }

    private final class Node: @unchecked Sendable {
        // Mutated only while the owning Router is uniquely referenced (copy-on-write).
        var literals: [Substring: Node] = [:]
        var parameter: Node?
        var endpoints: [(method: HTTPMethod, endpoint: Endpoint)] = []

        func copy() -> Node {
            let node = Node()
            node.literals = literals.mapValues { $0.copy() }
            node.parameter = parameter?.copy()
            node.endpoints = endpoints
            return node
        }
    }

    private var root = Node()
    package private(set) var routes: [(method: HTTPMethod, template: String)] = []

    package init() {}

    /// Registers `handler`; registering the same method and template again replaces it.
    package mutating func add(_ method: HTTPMethod, _ template: String, _ handler: Handler) {
        if !isKnownUniquelyReferenced(&root) {
            root = root.copy()
        }
        var node = root
        var names: [String] = []
        for segment in Self.segments(of: template) {
            if segment.count > 2, segment.first == "{", segment.last == "}" {
                names.append(String(segment.dropFirst().dropLast()))
                if node.parameter == nil { node.parameter = Node() }
                node = node.parameter!
            } else {
                let next = node.literals[segment] ?? Node()
                node.literals[segment] = next
                node = next
            }
        }
        let endpoint = Endpoint(handler: handler, template: template, parameterNames: names)
        if let index = node.endpoints.firstIndex(where: { $0.method == method }) {
            node.endpoints[index].endpoint = endpoint
        } else {
            node.endpoints.append((method, endpoint))
            routes.append((method, template))
        }
    }

    package func match(method: HTTPMethod, path: String) -> RouteMatch<Handler> {
        guard path.utf8.first == UInt8(ascii: "/") else { return .notFound }
        let segments = Self.segments(of: path).map { Substring(PercentDecoding.decode($0)) }
        var values: [Substring] = []
        if let node = Self.find(root, segments[...], &values, where: { $0.endpoints.contains { $0.method == method } }),
           let endpoint = node.endpoints.first(where: { $0.method == method })?.endpoint {
            var parameters: [String: String] = [:]
            for (name, value) in zip(endpoint.parameterNames, values) {
                parameters[name] = String(value)
            }
            return .found(endpoint.handler, template: endpoint.template, parameters: parameters)
        }
        values.removeAll()
        if let node = Self.find(root, segments[...], &values, where: { !$0.endpoints.isEmpty }) {
            return .methodNotAllowed(template: node.endpoints[0].endpoint.template, allowed: node.endpoints.map(\.method))
        }
        return .notFound
    }

    /// Depth-first, literals before the parameter; `values` collects parameter segments.
    private static func find(
        _ node: Node, _ rest: ArraySlice<Substring>, _ values: inout [Substring], where accept: (Node) -> Bool
    ) -> Node? {
        guard let segment = rest.first else {
            return accept(node) ? node : nil
        }
        let tail = rest.dropFirst()
        if let literal = node.literals[segment], let found = find(literal, tail, &values, where: accept) {
            return found
        }
        if !segment.isEmpty, let parameter = node.parameter {
            values.append(segment)
            if let found = find(parameter, tail, &values, where: accept) {
                return found
            }
            values.removeLast()
        }
        return nil
    }

    /// "/a/b" → ["a", "b"]; "/" → [""]; "/a/" → ["a", ""] so a trailing slash is a different path.
    private static func segments(of path: String) -> [Substring] {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first == "" { parts.removeFirst() }
        return parts
    }

}
