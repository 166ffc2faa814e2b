package import APNs
import Synchronization

/// The process's one APNs client, shared by its delivery engine (pushes and broadcasts) and its
/// channel routes (channel management). A process that delivers hands its engine's client
/// here (`share`); one that only serves HTTP makes it on the first channel request.
package final class ProcessAPNSClient: Sendable {
    private struct Held {
        var client: APNSClient
        /// Made here, so shut down here; a shared one is its engine owner's to shut down.
        var owned: Bool
    }

    private let held = Mutex<Held?>(nil)

    package init() {}

    /// The client, made from `configuration` on first use unless an engine shared its own.
    package func client(_ configuration: Configuration) throws -> APNSClient {
        try held.withLock { held in
            if let held { return held.client }
            let made = try APNSClient(configuration: configuration.apnsClientConfiguration)
            held = Held(client: made, owned: true)
            return made
        }
    }

    /// Makes `client` the process's: the delivery engine's, made before any request is served.
    package func share(_ client: APNSClient) {
        held.withLock { held in
            if held == nil { held = Held(client: client, owned: false) }
        }
    }

    /// Ends the client's threads, if this made it.
    package func shutdown() async {
        guard let held = held.withLock({ $0 }), held.owned else { return }
        await held.client.shutdown()
    }
}
