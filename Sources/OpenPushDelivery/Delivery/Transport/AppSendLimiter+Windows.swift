import OpenPushCore

extension AppSendLimiter {
    /// One app's pushes sent in windows of `window` (one hand-over each), at most `perApp` of the
    /// app's windows in flight at once across every batch; outcomes keyed by the push's id.
    func send<Push: Sendable>(_ pushes: [(id: Int64, push: Push)], window: Int, app: String, urgent: Bool,
                              deliver: @escaping @Sendable ([Push]) async -> [PushOutcome]) async -> [(id: Int64, outcome: PushOutcome)] {
        let size = max(1, window)
        let windows = stride(from: 0, to: pushes.count, by: size).map { $0..<min($0 + size, pushes.count) }
        let width = min(windows.count, perApp)
        return await withTaskGroup(of: [(id: Int64, outcome: PushOutcome)].self) { group in
            var results: [(id: Int64, outcome: PushOutcome)] = []
            results.reserveCapacity(pushes.count)
            var next = 0
            func addNext() {
                let part = pushes[windows[next]]
                next += 1
                group.addTask {
                    await self.acquire(app: app, urgent: urgent)
                    let outcomes = await deliver(part.map(\.push))
                    self.release(app: app)
                    return zip(part, outcomes).map { ($0.id, $1) }
                }
            }
            while next < width { addNext() }
            for await sent in group {
                results.append(contentsOf: sent)
                if next < windows.count { addNext() }
            }
            return results
        }
    }
}
