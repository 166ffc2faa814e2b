import Crypto
import Foundation
import OpenPushCore
import Testing
@testable import APNs
import APNsSimulator

/// Channel management and broadcasts: the client's requests on the management and push hosts,
/// against the simulator's checks of them (Apple's paths, headers, reasons).
@Suite struct APNSChannelsTests {
    static let bundleID = "com.example.app"

    /// Two simulators, one per environment, each serving its push and management hosts.
    private func withSimulators<T>(_ body: (APNSClient, _ sandbox: APNSSimulator, _ production: APNSSimulator,
                                            APNSCredential) async throws -> T) async throws -> T {
        let credential = try APNSTestSupport.credential()
        let keys = ["KEY1234567": try #require(credential.providerKey).signingKey.publicKeyDER]
        let sandbox = try APNSSimulator(.init(providerKeys: keys, bundleIDs: [Self.bundleID]))
        let production = try APNSSimulator(.init(providerKeys: keys, bundleIDs: [Self.bundleID]))
        try sandbox.start()
        try production.start()
        var configuration = APNSClientConfiguration(productionURL: production.endpoint, sandboxURL: sandbox.endpoint,
                                                    connectionsPerKey: 1, requestTimeout: 10)
        configuration.channelsProductionURL = production.endpoint
        configuration.channelsSandboxURL = sandbox.endpoint
        let client = try APNSClient(configuration: configuration)
        defer { sandbox.stop(); production.stop() }
        do {
            let result = try await body(client, sandbox, production, credential)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    static func broadcast(_ channelID: String, priority: Int = 5) -> APNSBroadcastRequest {
        APNSBroadcastRequest(bundleID: bundleID, channelID: channelID, priority: priority, expiration: 0,
                             requestID: "5f0e3a52-1111-4222-8333-944455556666",
                             payload: ["aps": ["event": "update", "timestamp": 1, "content-state": ["score": 1]]])
    }

    @Test func createReadListDeleteFollowApplesManagementAPI() async throws {
        try await withSimulators { client, sandbox, production, credential in
            let requestID = "0b8d2c4e-5f60-4a71-8b92-a3b4c5d6e7f8"
            let created = try await client.createChannel(bundleID: Self.bundleID, storagePolicy: .mostRecentMessageStored,
                                                         requestID: requestID, credential: credential, environment: .sandbox)
            #expect(created.status == 201)
            #expect(created.requestID == requestID)
            let channelID = try #require(created.channelID)
            #expect(Data(base64Encoded: channelID)?.count == 16)
            #expect(sandbox.channels().map(\.channelID) == [channelID] && production.channels().isEmpty)

            let read = try await client.readChannel(bundleID: Self.bundleID, channelID: channelID, requestID: requestID,
                                                    credential: credential, environment: .sandbox)
            #expect(read.status == 200)
            #expect(read.body == ["message-storage-policy": 1, "push-type": "LiveActivity"])
            let list = try await client.listChannels(bundleID: Self.bundleID, requestID: requestID, credential: credential,
                                                     environment: .sandbox)
            #expect(list.status == 200 && list.body == ["channels": [.string(channelID)]])

            let deleted = try await client.deleteChannel(bundleID: Self.bundleID, channelID: channelID, requestID: requestID,
                                                         credential: credential, environment: .sandbox)
            #expect(deleted.status == 204)
            let again = try await client.readChannel(bundleID: Self.bundleID, channelID: channelID, requestID: requestID,
                                                     credential: credential, environment: .sandbox)
            #expect(again.status == 400 && again.reason?.rawValue == "ChannelNotRegistered")
            #expect(sandbox.channels().isEmpty)
        }
    }

    @Test func aBroadcastGoesToThePushHostsOfItsChannelsEnvironmentOnly() async throws {
        try await withSimulators { client, sandbox, production, credential in
            let channelID = try #require(try await client.createChannel(
                bundleID: Self.bundleID, storagePolicy: .noMessageStored, requestID: UUID().uuidString, credential: credential,
                environment: .sandbox).channelID)
            let sent = try await client.broadcast(Self.broadcast(channelID), credential: credential, environment: .sandbox)
            #expect(sent.status == 200)
            #expect(sent.requestID == "5f0e3a52-1111-4222-8333-944455556666")
            let push = try #require(sandbox.accepted().first)
            #expect(push.channelID == channelID && push.deviceToken.isEmpty)
            #expect(push.header("apns-channel-id") == channelID && push.header("apns-push-type") == "liveactivity")
            #expect(push.header("apns-priority") == "5" && push.header("apns-expiration") == "0")
            #expect(push.json.objectValue?["channel_id"] == .string(channelID))

            // The production servers know no sandbox channel.
            let crossed = try await client.broadcast(Self.broadcast(channelID), credential: credential, environment: .production)
            #expect(crossed.status == 400 && crossed.reason?.rawValue == "ChannelNotRegistered")
            #expect(production.accepted().isEmpty)
        }
    }

    @Test func theSimulatorChecksHeadersAndTokensLikeApple() async throws {
        try await withSimulators { client, sandbox, _, credential in
            let channelID = try #require(try await client.createChannel(
                bundleID: Self.bundleID, storagePolicy: .noMessageStored, requestID: UUID().uuidString, credential: credential,
                environment: .sandbox).channelID)
            func reason(_ request: APNSBroadcastRequest, _ credential: APNSCredential) async throws -> String? {
                try await client.broadcast(request, credential: credential, environment: .sandbox).reason?.rawValue
            }
            #expect(try await reason(Self.broadcast(""), credential) == "MissingChannelId")
            #expect(try await reason(Self.broadcast("not base64!"), credential) == "BadChannelId")
            #expect(try await reason(Self.broadcast("dW5rbm93bg=="), credential) == "ChannelNotRegistered")
            #expect(try await reason(Self.broadcast(channelID, priority: 7), credential) == "BadPriority")
            var other = Self.broadcast(channelID)
            other.bundleID = "com.example.other"
            #expect(try await reason(other, credential) == "TopicDisallowed")
            let stranger = APNSCredential(keyID: "KEY1234567", teamID: "TEAM123456",
                                          signingKey: try P256SigningKey(pem: try P256SigningKey.generatePEM()))
            #expect(try await reason(Self.broadcast(channelID), stranger) == "InvalidProviderToken")
            #expect(sandbox.accepted().isEmpty)

            // Errors injected per channel answer its broadcasts, then its management requests.
            sandbox.setChannelBehaviour(.tooManyRequests, channelID: channelID, operation: .broadcast)
            let throttled = try await client.broadcast(Self.broadcast(channelID), credential: credential, environment: .sandbox)
            #expect(throttled.status == 429 && throttled.reason?.rawValue == "TooManyRequests")
            let control = sandbox.control(method: "DELETE", path: "/channels/behaviours/\(channelID)", body: [])
            #expect(control.status == 204)
            #expect(try await client.broadcast(Self.broadcast(channelID), credential: credential, environment: .sandbox).status == 200)
            // Base64 ids hold '/' (first, or two in a row) and '+': the control path takes them as they are.
            for slashed in ["ab/cd+ef==", "a/b/c=", "/ab//cd=="] {
                let body = JSONValue.object(["channel_id": .string(slashed), "status": 400, "reason": "BadChannelId"]).serializedBytes
                #expect(sandbox.control(method: "POST", path: "/channels/behaviours", body: body).status == 200)
                #expect(sandbox.control(method: "DELETE", path: "/channels/behaviours/\(slashed)", body: []).status == 204)
            }
        }
    }

    @Test func theManagementHostsDefaultToApplesAndFollowTheEnvironment() {
        let defaults = APNSClientConfiguration.fromEnvironment([:])
        #expect(defaults.url(for: APNSRoute(environment: .production, service: .channels))
                == "https://api-manage-broadcast.push.apple.com:2196")
        #expect(defaults.url(for: APNSRoute(environment: .sandbox, service: .channels))
                == "https://api-manage-broadcast.sandbox.push.apple.com:2195")
        let overridden = APNSClientConfiguration.fromEnvironment([
            "OPENPUSH_APNS_CHANNELS_PRODUCTION_URL": "http://127.0.0.1:3001",
            "OPENPUSH_APNS_CHANNELS_DEVELOPMENT_URL": "http://127.0.0.1:3002",
        ])
        #expect(overridden.url(for: APNSRoute(environment: .production, service: .channels)) == "http://127.0.0.1:3001")
        #expect(overridden.url(for: APNSRoute(environment: .sandbox, service: .channels)) == "http://127.0.0.1:3002")
        #expect(overridden.url(for: APNSRoute(environment: .production, service: .push)) == "https://api.push.apple.com")
    }
}
