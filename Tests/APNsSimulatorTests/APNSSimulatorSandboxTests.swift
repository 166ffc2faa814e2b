import Foundation
import HTTP2
import Testing
import APNsSimulator

/// Playing APNs' sandbox endpoint (`Configuration.sandbox`): every answer carries its own
/// `apns-unique-id`, a lower-case UUID; the production default sends none.
@Suite struct APNSSimulatorSandboxTests {
    typealias Client = APNSSimulatorTestClient
    typealias Fixtures = APNSSimulatorFixtures

    private func header(_ name: String, _ headers: [HTTP2Header]) -> String? {
        headers.first { $0.name == name }?.value
    }

    typealias Answer = (status: Int, headers: [HTTP2Header], body: [UInt8])

    private func answers(sandbox: Bool) async throws -> (responses: [Answer?], simulator: APNSSimulator) {
        let simulator = try APNSSimulator(.init(acceptAnyToken: true, sandbox: sandbox))
        try simulator.start()
        defer { simulator.stop() }
        let pushes = [
            Client.Push(token: Fixtures.deviceToken("01"), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload),
            Client.Push(token: Fixtures.deviceToken("02"), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload),
            // Refused (priority 2 is not Apple's): a refusal carries one too.
            Client.Push(token: Fixtures.deviceToken("03"), headers: Fixtures.pushHeaders(["apns-priority": "2"]),
                        body: Fixtures.alertPayload),
        ]
        let responses = try await Client.send(pushes, port: simulator.port).responses
        return ([0, 1, 2].map { responses[Client.streamID($0)] }, simulator)
    }

    @Test func sandboxAnswersCarryAUniqueIDAndTheRecordKeepsIt() async throws {
        let (responses, simulator) = try await answers(sandbox: true)
        #expect(responses.map { $0?.status } == [200, 200, 400])
        let ids = responses.compactMap { $0.flatMap { header("apns-unique-id", $0.headers) } }
        #expect(ids.count == 3)
        #expect(Set(ids).count == 3)
        for id in ids {
            #expect(id == id.lowercased())
            #expect(UUID(uuidString: id) != nil)
        }
        #expect(zip(responses, ids).allSatisfy { response, id in response.flatMap { header("apns-id", $0.headers) } != id })
        let recorded = simulator.accepted().sorted { $0.deviceToken < $1.deviceToken }
        #expect(recorded.map(\.uniqueID) == Array(ids.prefix(2)))
        #expect(recorded.first?.json.objectValue?["apns_unique_id"]?.stringValue == ids.first)
    }

    @Test func productionAnswersCarryNone() async throws {
        let (responses, simulator) = try await answers(sandbox: false)
        #expect(responses.map { $0?.status } == [200, 200, 400])
        #expect(responses.allSatisfy { $0.map { header("apns-unique-id", $0.headers) == nil } == true })
        #expect(simulator.accepted().allSatisfy { $0.uniqueID == nil && $0.json.objectValue?["apns_unique_id"] == nil })
    }
}
