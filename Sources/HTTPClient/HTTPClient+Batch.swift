/// Many requests at once (one API's calls for many recipients): the batch is handed to the
/// driving thread with one lock and one wake-up, and awaited with one continuation, instead of
/// each; requests alike but for their bodies also share one header list.
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
        return await send(count: bodies.count) { index throws(HTTPClientError) in
            try Transfer(template, userAgent: userAgent, headers: headers, body: bodies[index], reusing: idleHandle())
        }
    }

    /// Sends each of `requests` (each its own URL, headers and body) with one hand-over to the
    /// driving thread, and returns the answers in their order. A request with the same headers
    /// as the one before it shares its header list.
    package func send(_ requests: [HTTPClientRequest]) async -> [Result<HTTPClientResponse, HTTPClientError>] {
        guard !requests.isEmpty else { return [] }
        var shared: (index: Int, list: CurlStringList)?
        return await send(count: requests.count) { index throws(HTTPClientError) in
            let request = requests[index]
            let list: CurlStringList
            if let known = shared, Self.sameHeaders(requests[known.index].headers, request.headers) {
                list = known.list
            } else {
                list = try CurlStringList(headerListOf: request)
                shared = (index, list)
            }
            return try Transfer(request, userAgent: userAgent, headers: list, reusing: idleHandle())
        }
    }

    private static func sameHeaders(_ one: [(name: String, value: String)], _ other: [(name: String, value: String)]) -> Bool {
        one.count == other.count && zip(one, other).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    private func send(count: Int, transfer make: (Int) throws(HTTPClientError) -> Transfer) async
        -> [Result<HTTPClientResponse, HTTPClientError>] {
        await withCheckedContinuation { continuation in
            let results = HTTPBatchResults(count: count, continuation: continuation)
            var transfers: [Transfer] = []
            transfers.reserveCapacity(count)
            // Every transfer is made before any is handed over: until then, only this thread
            // records results; after, only the driving thread.
            for index in 0..<count {
                do throws(HTTPClientError) {
                    let transfer = try make(index)
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
