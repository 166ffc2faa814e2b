/// Many requests alike but for their bodies (one API's calls for many recipients): each
/// request's transfer reuses one header list, and the batch is handed to the driving thread
/// with one lock and one wake-up, and awaited with one continuation, instead of each.
extension HTTPClient {
    /// Posts each of `bodies` as `template` (its URL, method, headers and options; its own body
    /// is ignored) and returns the answers in the bodies' order; a request that got no answer
    /// is its error.
    package func send(_ bodies: [[UInt8]], as template: HTTPClientRequest) async
        -> [Result<HTTPClientResponse, HTTPClientError>] {
        guard !bodies.isEmpty else { return [] }
        let headers: CurlStringList
        do throws(HTTPClientError) {
            headers = try CurlStringList(headerListOf: template)
        } catch {
            return bodies.map { _ in .failure(error) }
        }
        return await withCheckedContinuation { continuation in
            let results = HTTPBatchResults(count: bodies.count, continuation: continuation)
            var transfers: [Transfer] = []
            transfers.reserveCapacity(bodies.count)
            // Every transfer is made before any is handed over: until then, only this thread
            // records results; after, only the driving thread.
            for (index, body) in bodies.enumerated() {
                do throws(HTTPClientError) {
                    let transfer = try Transfer(template, userAgent: userAgent, headers: headers, body: body)
                    transfer.waiter = .batch(results, index: index)
                    transfers.append(transfer)
                } catch {
                    results.record(.failure(error), at: index)
                }
            }
            if !transfers.isEmpty, !hand(transfers) {
                for transfer in transfers { transfer.complete(.failure(.shutDown)) }
            }
        }
    }
}

/// A batch's answers as they come, resumed once the last is in. Recorded by one thread at a
/// time (the caller before the hand-over, the driving thread after).
final class HTTPBatchResults: @unchecked Sendable {
    private var results: [Result<HTTPClientResponse, HTTPClientError>?]
    private var remaining: Int
    private let continuation: CheckedContinuation<[Result<HTTPClientResponse, HTTPClientError>], Never>

    init(count: Int, continuation: CheckedContinuation<[Result<HTTPClientResponse, HTTPClientError>], Never>) {
        results = Array(repeating: nil, count: count)
        remaining = count
        self.continuation = continuation
    }

    func record(_ result: Result<HTTPClientResponse, HTTPClientError>, at index: Int) {
        guard results[index] == nil else { return }
        results[index] = result
        remaining -= 1
        if remaining == 0 { continuation.resume(returning: results.map { $0! }) }
    }
}
