package enum RouteMatch<Handler: Sendable>: Sendable {
    case found(Handler, template: String, parameters: [String: String])
    /// The path is known but not for this method.
    case methodNotAllowed(template: String, allowed: [HTTPMethod])
    case notFound
}
