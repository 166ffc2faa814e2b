import Crypto
package import HTTPClient
package import OpenPushCore

/// OAuth access tokens for FCM HTTP v1, one per service account (keyed by project and key id):
/// an RS256 JWT assertion signed with the account's key is exchanged at the token URL (a setting,
/// never the key file's `token_uri`) and the answer cached until shortly before it expires.
/// However many workers ask at once, one exchange runs per account; after FCM answers `401`,
/// `invalidate` makes the next caller fetch again. Time is passed in (Unix seconds).
package actor FCMAccessTokens {
    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// What Google grants, and the most an assertion may ask for.
    package static let assertionLifetime: Int64 = 3600
    /// A token is replaced this long before it expires, so one in flight does not expire on the way.
    package static let refreshMargin: Double = 300

    private struct Key: Hashable {
        var projectID: String
        var privateKeyID: String
    }

    private enum Entry {
        case ready(FCMAccessToken)
        case fetching(id: UInt64, Task<FCMAccessToken, any Error>)
    }

    private let tokenURL: String
    private let client: HTTPClient
    private let maxEntries: Int
    private var entries: [Key: Entry] = [:]
    private var nextFetchID: UInt64 = 0
    /// Exchanges made, and callers awaiting one now (for tests and metrics).
    package private(set) var fetchCount = 0
    package private(set) var waitingCallers = 0

    /// - Parameter maxEntries: accounts kept at once (one per app with FCM credentials); past it
    ///   the token closest to expiry is dropped.
    package init(tokenURL: String, client: HTTPClient, maxEntries: Int = 10_000) {
        self.tokenURL = tokenURL
        self.client = client
        self.maxEntries = max(1, maxEntries)
    }

    /// A valid access token for `account`: the cached one, or a new one fetched once for every
    /// caller waiting on it.
    package func token(for account: FCMServiceAccount, now: Double) async throws(FCMAccessTokenError) -> FCMAccessToken {
        let key = Key(projectID: account.projectID, privateKeyID: account.privateKeyID)
        let task: Task<FCMAccessToken, any Error>
        let fetchID: UInt64
        switch entries[key] {
        case .ready(let token)? where token.isFresh(at: now):
            return token
        case .fetching(let id, let running)?:
            (fetchID, task) = (id, running)
        default:
            fetchCount += 1
            nextFetchID += 1
            fetchID = nextFetchID
            task = Task { [tokenURL, client] in
                try await Self.fetch(account, tokenURL: tokenURL, client: client, now: now)
            }
            makeRoom(for: key)
            entries[key] = .fetching(id: fetchID, task)
        }
        waitingCallers += 1
        defer { waitingCallers -= 1 }
        do {
            let token = try await task.value
            if case .fetching(let id, _)? = entries[key], id == fetchID { entries[key] = .ready(token) }
            return token
        } catch {
            // A failed exchange is not cached: the next caller tries again.
            if case .fetching(let id, _)? = entries[key], id == fetchID { entries[key] = nil }
            throw error as? FCMAccessTokenError ?? .unavailable("\(error)")
        }
    }

    /// Forgets `token` after FCM refused it (`401`), so the next caller fetches a new one. A token
    /// already replaced by another caller's refresh is left alone.
    package func invalidate(_ token: FCMAccessToken, for account: FCMServiceAccount) {
        let key = Key(projectID: account.projectID, privateKeyID: account.privateKeyID)
        if case .ready(let cached)? = entries[key], cached == token { entries[key] = nil }
    }

    /// Accounts cached or being fetched.
    package var count: Int { entries.count }

    private func makeRoom(for key: Key) {
        guard entries[key] == nil, entries.count >= maxEntries else { return }
        let ready = entries.compactMap { key, entry -> (Key, Double)? in
            if case .ready(let token) = entry { return (key, token.expiresAt) }
            return nil
        }
        if let oldest = ready.min(by: { $0.1 < $1.1 }) { entries[oldest.0] = nil }
    }
}

/// An OAuth access token for FCM and when it expires (Unix seconds).
package struct FCMAccessToken: Sendable, Equatable {
    package var value: String
    package var expiresAt: Double
    /// Replaced from here on: `FCMAccessTokens.refreshMargin` before expiry (half the lifetime
    /// for a token granted for less than twice the margin).
    package var refreshAt: Double

    package init(value: String, expiresAt: Double, refreshAt: Double) {
        self.value = value
        self.expiresAt = expiresAt
        self.refreshAt = refreshAt
    }

    func isFresh(at now: Double) -> Bool { now < refreshAt }
}

/// Why no access token came.
package enum FCMAccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token endpoint refused the service account (`400 invalid_grant`, `401`, an
    /// unusable key): retrying does not help until the credentials change.
    case refused(String)
    /// No usable answer (transport error, `5xx`, `429`, a malformed body): worth retrying.
    case unavailable(String)

    package var description: String {
        switch self {
        case .refused(let reason): return "the token endpoint refused the FCM service account: \(reason)"
        case .unavailable(let reason): return "no FCM access token: \(reason)"
        }
    }
}
