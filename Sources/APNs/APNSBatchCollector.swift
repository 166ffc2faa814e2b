import OpenPushCore
import Synchronization

/// Gathers the outcomes of a batch, completed on the event loops' threads, and hands
/// them over in order once the last one is in.
final class APNSBatchCollector<Response: Sendable>: Sendable {
    private struct State {
        var results: [Result<Response, APNSTransportError>?]
        var remaining: Int
    }

    private let state: Mutex<State>
    private let done: @Sendable ([Result<Response, APNSTransportError>]) -> Void

    init(count: Int, done: @escaping @Sendable ([Result<Response, APNSTransportError>]) -> Void) {
        state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count))
        self.done = done
    }

    func record(_ result: Result<Response, APNSTransportError>, at index: Int) {
        let finished = state.withLock { state -> [Result<Response, APNSTransportError>]? in
            guard state.results[index] == nil else { return nil }
            state.results[index] = result
            state.remaining -= 1
            return state.remaining == 0 ? state.results.map { $0! } : nil
        }
        if let finished { done(finished) }
    }
}
