import OpenPushCore
import OpenPushDelivery
import Postgres

/// A request made idempotent by a key: the one find / lock / save of every idempotent send.
/// The first answer under the key is saved with the work's writes; a repeat within `retention`
/// gets that answer back instead of running again.
struct IdempotentRequest: Sendable {
    static let conflict = "Idempotency-Key was already used with a different request body"

    var appID: String
    var scope: String
    /// Who sent the key (`IdempotencyStore.caller`).
    var caller: String
    var key: String
    var retention: Double
    /// The request body's hash: a repeat with another body is refused (`409`). nil: not compared.
    var digest: [UInt8]?

    enum Outcome<T: Sendable>: Sendable {
        case answered(T)
        case replayed(IdempotentResponse)
    }

    /// Runs `work` inside the caller's transaction unless the key has answered already.
    /// Concurrent repeats of one key queue on a lock held until commit; the first to commit
    /// wins and the rest replay its answer. `work` returns its value and the answer to save.
    static func run<T: Sendable>(_ request: IdempotentRequest?, now: Double, in connection: PostgresConnection,
                                 _ work: () throws -> (T, IdempotentResponse)) throws -> Outcome<T> {
        guard let request else { return .answered(try work().0) }
        // The key's lock (`appID/scope/caller/key`) is held until commit.
        if let first = try IdempotencyStore.lockAndFind(appID: request.appID, scope: request.scope, caller: request.caller,
                                                 key: request.key, notBefore: now - request.retention, in: connection) {
            if let digest = request.digest, first.requestDigest != digest { throw APIError(status: 409, conflict) }
            return .replayed(first)
        }
        var (value, response) = try work()
        response.requestDigest = request.digest
        try IdempotencyStore.save(appID: request.appID, scope: request.scope, caller: request.caller, key: request.key,
                                  response: response, now: now, in: connection)
        return .answered(value)
    }
}
