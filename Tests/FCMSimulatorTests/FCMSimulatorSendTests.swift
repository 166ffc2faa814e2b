import FCMSimulator
import Foundation
import OpenPushCore
import Testing

private typealias Fixtures = FCMSimulatorFixtures

/// `POST /v1/projects/{project_id}/messages:send` over h2c: the access token, the answers
/// FCM gives, and the controlled failures.
@Suite struct FCMSimulatorSendTests {
    static let unauthenticated: JSONValue = ["error": [
        "code": 401,
        "message": "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        "status": "UNAUTHENTICATED",
    ]]

    static func fcmError(_ code: Int64, _ status: String, _ message: String, _ errorCode: String) -> JSONValue {
        ["error": [
            "code": .int(code), "message": .string(message), "status": .string(status),
            "details": [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": .string(errorCode)]],
        ]]
    }

    @Test func anAcceptedSendIsAnsweredWithItsNameAndListedWithItsProject() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            let tokenA = try await Fixtures.accessToken(Fixtures.accountA, simulator: simulator, client: client, now: clock.now)
            let tokenB = try await Fixtures.accessToken(Fixtures.accountB, simulator: simulator, client: client, now: clock.now)
            let message: JSONObject = ["notification": ["title": "Hi", "body": "There"], "data": ["k": "v"]]
            let response = try await Fixtures.send("project-a", accessToken: tokenA, message: message, simulator: simulator)
            #expect(response.status == 200)
            let name = try #require(try JSONValue.parse(response.body).objectValue?["name"]?.stringValue)
            #expect(name.hasPrefix("projects/project-a/messages/0:"))
            let other = try await Fixtures.send("project-b", token: "other-device", accessToken: tokenB, simulator: simulator)
            #expect(other.status == 200)

            let (status, listed) = try await Fixtures.control(
                "GET", "/messages?token=\(Fixtures.registrationToken)", simulator: simulator, client: client)
            #expect(status == 200)
            let messages = try #require(listed?.objectValue?["messages"]?.arrayValue)
            #expect(messages.count == 1)
            let first = try #require(messages.first?.objectValue)
            #expect(first["project_id"] == "project-a" && first["name"]?.stringValue == name)
            #expect(first["client_email"]?.stringValue == Fixtures.accountA.clientEmail)
            var sent = message
            sent["token"] = .string(Fixtures.registrationToken)
            #expect(first["message"] == .object(sent))
            #expect(listed?.objectValue?["accepted_count"] == 2)
            #expect(simulator.accepted { $0.projectID == "project-b" }.map(\.token) == ["other-device"])

            #expect(try await Fixtures.control("DELETE", "/messages", simulator: simulator, client: client).0 == 204)
            #expect(simulator.accepted().isEmpty)
        }
    }

    @Test func aTokenItDidNotIssueOrThatExpiredIsUnauthenticated() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            for bearer in [nil, "ya29.made-up"] {
                let response = try await Fixtures.send("project-a", accessToken: bearer, simulator: simulator)
                #expect(response.status == 401)
                #expect(try JSONValue.parse(response.body) == Self.unauthenticated)
            }
            let token = try await Fixtures.accessToken(Fixtures.accountA, simulator: simulator, client: client, now: clock.now)
            // Account A's token does not send for project B.
            #expect(try await Fixtures.send("project-b", accessToken: token, simulator: simulator).status == 403)
            #expect(try await Fixtures.send("project-a", accessToken: token, simulator: simulator).status == 200)
            clock.advance(seconds: 3601)
            let expired = try await Fixtures.send("project-a", accessToken: token, simulator: simulator)
            #expect(expired.status == 401)
            #expect(try JSONValue.parse(expired.body) == Self.unauthenticated)
            #expect(simulator.accepted().count == 1)
        }
    }

    @Test func revokedAccessTokensAreUnauthenticated() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            let token = try await Fixtures.accessToken(Fixtures.accountA, simulator: simulator, client: client, now: clock.now)
            #expect(try await Fixtures.send("project-a", accessToken: token, simulator: simulator).status == 200)
            let (status, body) = try await Fixtures.control("POST", "/access_tokens/revoke", simulator: simulator, client: client)
            #expect(status == 200 && body == ["revoked": 1])
            #expect(try await Fixtures.send("project-a", accessToken: token, simulator: simulator).status == 401)
            // A new exchange works again.
            let fresh = try await Fixtures.accessToken(Fixtures.accountA, simulator: simulator, client: client, now: clock.now)
            #expect(try await Fixtures.send("project-a", accessToken: fresh, simulator: simulator).status == 200)
        }
    }

    @Test func eachControlledFailureAnswersTheNextSendsThenStops() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            let token = try await Fixtures.accessToken(Fixtures.accountA, simulator: simulator, client: client, now: clock.now)
            let expected: [(String, Int, JSONValue, String?)] = [
                (#"{"status": 429, "count": 2, "retry_after": 30}"#, 429,
                 Self.fcmError(429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages.", "QUOTA_EXCEEDED"), "30"),
                (#"{"status": 503, "count": 1}"#, 503,
                 Self.fcmError(503, "UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE"), nil),
                (#"{"status": 500, "count": 1}"#, 500, Self.fcmError(500, "INTERNAL", "Internal error encountered.", "INTERNAL"), nil),
                (#"{"status": 401, "count": 1}"#, 401, Self.unauthenticated, nil),
            ]
            for (request, status, body, retryAfter) in expected {
                let (answer, _) = try await Fixtures.control("POST", "/failures", body: request, simulator: simulator, client: client)
                #expect(answer == 200)
                let count = request.contains(#""count": 2"#) ? 2 : 1
                for _ in 0..<count {
                    let response = try await Fixtures.send("project-a", accessToken: token, simulator: simulator)
                    #expect(response.status == status)
                    #expect(try JSONValue.parse(response.body) == body)
                    #expect(response.header("retry-after") == retryAfter)
                }
                #expect(try await Fixtures.send("project-a", accessToken: token, simulator: simulator).status == 200)
            }
            #expect(simulator.accepted().count == 4)
            let (_, counters) = try await Fixtures.control("GET", "/counters", simulator: simulator, client: client)
            #expect(counters == ["sends": 9, "accepted": 4, "token_requests": 1, "access_tokens_issued": 1])
        }
    }

    @Test func failureRequestsAreChecked() async throws {
        try await Fixtures.withSimulator { simulator, client, _ in
            for body in [#"{"status": 418, "count": 1}"#, #"{"status": 429, "count": 0}"#, #"{"status": 429, "count": 1, "retry_after": -1}"#, "[]"] {
                let (status, answer) = try await Fixtures.control("POST", "/failures", body: body, simulator: simulator, client: client)
                #expect(status == 400 && answer?.objectValue?["error"]?.stringValue != nil, "\(body)")
            }
            #expect(try await Fixtures.control("GET", "/nothing", simulator: simulator, client: client).0 == 404)
            #expect(try await Fixtures.control("PUT", "/messages", simulator: simulator, client: client).0 == 405)
        }
    }

    @Test func anUnregisteredTokenAnswers404UnregisteredAndOthersStillSend() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            let token = try await Fixtures.accessToken(Fixtures.accountA, simulator: simulator, client: client, now: clock.now)
            #expect(try await Fixtures.send("project-a", accessToken: token, simulator: simulator).status == 200)
            let escaped = Fixtures.registrationToken.replacingOccurrences(of: ":", with: "%3A")
            let (status, _) = try await Fixtures.control("POST", "/tokens/\(escaped)/unregister", simulator: simulator, client: client)
            #expect(status == 200)
            let gone = try await Fixtures.send("project-a", accessToken: token, simulator: simulator)
            #expect(gone.status == 404)
            #expect(try JSONValue.parse(gone.body) == Self.fcmError(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED"))
            #expect(try await Fixtures.send("project-a", token: "another-device", accessToken: token, simulator: simulator).status == 200)
            #expect(simulator.accepted().map(\.token) == [Fixtures.registrationToken, "another-device"])
        }
    }

    @Test func invalidMessagesAre400InvalidArgumentWithTheField() async throws {
        try await Fixtures.withSimulator { simulator, client, clock in
            let token = try await Fixtures.accessToken(Fixtures.accountA, simulator: simulator, client: client, now: clock.now)
            let nonString = try await Fixtures.send("project-a", accessToken: token, message: ["data": ["n": 1]], simulator: simulator)
            #expect(nonString.status == 400)
            let error = try #require(try JSONValue.parse(nonString.body).objectValue?["error"]?.objectValue)
            #expect(error["status"] == "INVALID_ARGUMENT")
            let details = error["details"]?.arrayValue ?? []
            #expect(details.first?.objectValue?["errorCode"] == "INVALID_ARGUMENT")
            #expect(details.last?.objectValue?["fieldViolations"]?.arrayValue?.first?.objectValue?["field"] == "message.data[0].value")

            let badToken = try await Fixtures.send("project-a", token: "has space", accessToken: token, simulator: simulator)
            #expect(badToken.status == 400)
            #expect(try JSONValue.parse(badToken.body).objectValue?["error"]?.objectValue?["message"]
                == "The registration token is not a valid FCM registration token")
            let noRecipient = try await FCMSimulatorTestClient.send(
                .init(path: "/v1/projects/project-a/messages:send", accessToken: token, body: Array(#"{"message": {}}"#.utf8)),
                port: simulator.port)
            #expect(noRecipient.status == 400)
            #expect(simulator.accepted().isEmpty)
        }
    }
}
