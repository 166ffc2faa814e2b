import Foundation
import OpenPushCore
import Testing
@testable import APNsSimulator

/// The control API as the executable publishes it, called directly.
@Suite struct APNSSimulatorControlAPITests {
    let simulator: APNSSimulator

    init() throws {
        simulator = try APNSSimulator(.init(acceptAnyToken: true))
    }

    private func call(_ method: String, _ path: String, _ body: String = "") -> APNSSimulator.ControlResponse {
        simulator.control(method: method, path: path, body: Array(body.utf8))
    }

    @Test func behavioursAreSetListedAndRemoved() {
        let set = call("POST", "/behaviours", #"{"token_prefix": "BEEF", "status": 410, "reason": "Unregistered", "delay_ms": 250}"#)
        #expect(set.status == 200)
        #expect(set.body == ["token_prefix": "beef", "status": 410, "reason": "Unregistered", "delay_ms": 250])
        #expect(simulator.behaviours()["beef"] == APNSSimulator.Behaviour(status: 410, reason: "Unregistered", delay: .milliseconds(250)))

        let listed = call("GET", "/behaviours").body?.objectValue?["behaviours"]?.arrayValue ?? []
        #expect(listed.contains { $0.objectValue?["token_prefix"] == "beef" })
        #expect(listed.contains { $0.objectValue?["token_prefix"] == "dead" })

        #expect(call("DELETE", "/behaviours/beef").status == 204)
        #expect(simulator.behaviours()["beef"] == nil)
        #expect(call("DELETE", "/behaviours/beef").status == 404)
    }

    @Test func certificateBehavioursAreSetListedAndRemovedAndResetClearsThem() {
        let set = call("POST", "/certificates/behaviours", #"{"uid": "com.example.app", "status": 403, "reason": "BadCertificate"}"#)
        #expect(set.status == 200)
        #expect(simulator.certificateBehaviours()["com.example.app"] == APNSSimulator.Behaviour(status: 403, reason: "BadCertificate"))
        #expect(call("GET", "/certificates/behaviours").body == [
            "behaviours": [["uid": "com.example.app", "status": 403, "reason": "BadCertificate"]],
        ])
        #expect(call("POST", "/certificates/behaviours", #"{"uid": "x", "status": 403}"#).status == 400)
        #expect(call("PUT", "/certificates/behaviours").status == 405)
        #expect(call("DELETE", "/certificates/behaviours/com.example.app").status == 204)
        #expect(call("DELETE", "/certificates/behaviours/com.example.app").status == 404)
        _ = call("POST", "/certificates/behaviours", #"{"uid": "a", "status": 403, "reason": "BadCertificateEnvironment"}"#)
        #expect(call("POST", "/reset").status == 204)
        #expect(simulator.certificateBehaviours().isEmpty)
    }

    @Test(arguments: [
        #"{"token_prefix": "xyz", "status": 410, "reason": "Unregistered"}"#,
        #"{"token_prefix": "", "status": 410, "reason": "Unregistered"}"#,
        #"{"token_prefix": "ab", "status": 99, "reason": "Nope"}"#,
        #"{"token_prefix": "ab", "status": 410}"#,
        #"{"token_prefix": "ab", "status": 200, "delay_ms": -1}"#,
        "[]", "nope",
    ])
    func badBehavioursAreRefused(body: String) {
        let response = call("POST", "/behaviours", body)
        #expect(response.status == 400)
        #expect(response.body?.objectValue?["error"]?.stringValue != nil)
    }

    @Test func goAwayIsSetAndCleared() {
        #expect(call("POST", "/goaway", #"{"after_streams": 3}"#).status == 200)
        #expect(call("POST", "/goaway", #"{"after_streams": null}"#).status == 200)
        #expect(call("POST", "/goaway", #"{"after_streams": 0}"#).status == 400)
        #expect(call("POST", "/goaway", "{}").status == 400)
    }

    @Test func pushesListAndClearAndUnknownRoutes() {
        #expect(call("GET", "/pushes").body == ["accepted_count": 0, "pushes": []])
        #expect(simulator.control(method: "GET", path: "/pushes", query: ["limit": "x"], body: []).status == 400)
        #expect(call("DELETE", "/pushes").status == 204)
        #expect(call("PUT", "/pushes").status == 405)
        #expect(call("GET", "/nothing").status == 404)
        simulator.setBehaviour(.accept, forTokenPrefix: "dead")
        #expect(call("POST", "/reset").status == 204)
        #expect(simulator.behaviours() == APNSSimulator.Behaviour.builtIn(slowDelay: .seconds(1)))
    }
}

/// `GET /pushes` filters and limits under the simulator's lock; recording goes through the
/// simulator's own `record`, as a connection does.
@Suite struct APNSSimulatorPushListTests {
    @Test func theNewestMatchingPushesComeOldestFirstWithMillisecondTimes() throws {
        let simulator = try APNSSimulator(.init(acceptAnyToken: true))
        for (index, token) in ["aa01", "bb02", "AA01", "cc03", "aa01"].enumerated() {
            simulator.record(APNSSimulator.RecordedPush(
                deviceToken: token, apnsID: "id-\(index)", headers: [], payload: Array("{}".utf8),
                receivedAt: Date(timeIntervalSince1970: 1_796_000_000 + Double(index) + 0.25)))
        }
        let listed = simulator.control(method: "GET", path: "/pushes", query: ["token": "aa01", "limit": "2"], body: []).body
        #expect(listed?.objectValue?["accepted_count"] == 5)
        let pushes = listed?.objectValue?["pushes"]?.arrayValue ?? []
        #expect(pushes.map { $0.objectValue?["apns_id"] } == ["id-2", "id-4"])
        #expect(pushes.first?.objectValue?["received_at"] == "2026-11-30T00:53:22.250Z")
        let all = simulator.control(method: "GET", path: "/pushes", body: []).body?.objectValue?["pushes"]?.arrayValue ?? []
        #expect(all.map { $0.objectValue?["apns_id"] } == ["id-0", "id-1", "id-2", "id-3", "id-4"])
        #expect(simulator.accepted(limit: 0).isEmpty)
    }
}
