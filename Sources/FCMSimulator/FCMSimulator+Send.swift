import Crypto
import Foundation
package import HTTP2
import OpenPushCore

extension FCMSimulator {
    /// The answer to one request on the h2c port.
    package struct SendAnswer: Sendable {
        package var status: Int
        package var headers: [HTTP2Header]
        package var body: [UInt8]
    }

    private static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    private static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// Answers `POST /v1/projects/{project_id}/messages:send` like FCM: the bearer token is
    /// checked first (401), then injected failures, the body (400), the token's registration
    /// (404), and an accepted message is recorded.
    package func answerSend(method: String?, path: String?, authorization: String?, body: [UInt8]) -> SendAnswer {
        guard let path, let projectID = Self.projectID(sendPath: path) else {
            return Self.error(404, "NOT_FOUND", "Requested entity was not found.")
        }
        guard method == "POST" else {
            return Self.error(405, "METHOD_NOT_ALLOWED", "Only POST is supported on messages:send.")
        }
        let now = configuration.now()
        let bearer = authorization.flatMap { value -> String? in
            let parts = value.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]) : nil
        }
        enum Gate {
            case unauthenticated, wrongProject, failure(InjectedFailure), open(IssuedToken)
        }
        let gate: Gate = state.withLock { state in
            state.counters.sends += 1
            guard let bearer, let issued = state.accessTokens[bearer], issued.expiresAt > now else { return .unauthenticated }
            guard issued.projectID == projectID else { return .wrongProject }
            guard !state.failures.isEmpty else { return .open(issued) }
            let failure = state.failures[0]
            state.failures[0].remaining -= 1
            if state.failures[0].remaining <= 0 { state.failures.removeFirst() }
            return .failure(failure)
        }
        let issued: IssuedToken
        switch gate {
        case .unauthenticated: return Self.unauthenticated
        case .wrongProject:
            return Self.error(403, "PERMISSION_DENIED",
                              "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(projectID)' (or it may not exist).")
        case .failure(let failure): return Self.answer(failure)
        case .open(let token): issued = token
        }

        guard let request = (try? JSONValue.parse(body))?.objectValue else {
            return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.", errorCode: "INVALID_ARGUMENT")
        }
        guard let message = request["message"]?.objectValue else {
            return Self.invalidArgument("message", "Message must be set.")
        }
        guard let token = message["token"]?.stringValue else {
            return Self.invalidArgument("message", "Recipient of the message is not set.")
        }
        guard Self.isPlausibleRegistrationToken(token) else {
            return Self.error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                              errorCode: "INVALID_ARGUMENT")
        }
        if let data = message["data"] {
            guard let fields = data.objectValue else { return Self.invalidArgument("message.data", "Invalid value at 'message.data'") }
            // FCM's data map is string → string.
            for (index, field) in fields.enumerated() where field.value.stringValue == nil {
                return Self.invalidArgument(
                    "message.data[\(index)].value",
                    "Invalid value at 'message.data[\(index)].value' (TYPE_STRING), \(String(decoding: field.value.serializedBytes, as: UTF8.self))")
            }
        }
        if request["validate_only"]?.boolValue == true {
            return Self.accepted(name: "projects/\(projectID)/messages/fake_message_id")
        }
        if state.withLock({ $0.unregistered.contains(token) }) {
            return Self.error(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED")
        }
        let name = "projects/\(projectID)/messages/0:\(Int64(now.timeIntervalSince1970 * 1_000_000))%\(SecureRandom.bytes(8).hexString)"
        record(SentMessage(projectID: projectID, name: name, token: token, message: message,
                           clientEmail: issued.clientEmail, receivedAt: now))
        return Self.accepted(name: name)
    }

    /// `{project_id}` of `/v1/projects/{project_id}/messages:send`.
    static func projectID(sendPath path: String) -> String? {
        let parts = path.split(separator: "?", maxSplits: 1)[0].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "projects", !parts[3].isEmpty,
              parts[4] == "messages:send" else { return nil }
        return String(parts[3])
    }

    /// An opaque string of printable ASCII, as registration tokens are; anything else is
    /// refused as FCM refuses a malformed token.
    static func isPlausibleRegistrationToken(_ token: String) -> Bool {
        (1...4096).contains(token.utf8.count) && token.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    private static func accepted(name: String) -> SendAnswer {
        SendAnswer(status: 200, headers: [HTTP2Header(name: "content-type", value: "application/json; charset=UTF-8")],
                   body: JSONValue.object(["name": .string(name)]).serializedBytes)
    }

    private static var unauthenticated: SendAnswer {
        error(401, "UNAUTHENTICATED",
              "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.")
    }

    private static func answer(_ failure: InjectedFailure) -> SendAnswer {
        var answer = switch failure.status {
        case .invalidArgument:
            invalidArgument("message.android.ttl", "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"-1s\"")
        case .unauthenticated: unauthenticated
        case .quotaExceeded:
            error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages.", errorCode: "QUOTA_EXCEEDED")
        case .internal: error(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL")
        case .unavailable: error(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE")
        }
        if let retryAfter = failure.retryAfter {
            answer.headers.append(HTTP2Header(name: "retry-after", value: String(retryAfter)))
        }
        return answer
    }

    private static func invalidArgument(_ field: String, _ description: String) -> SendAnswer {
        error(400, "INVALID_ARGUMENT", description, errorCode: "INVALID_ARGUMENT", fieldViolation: (field, description))
    }

    /// Google's error shape: `{"error": {"code", "message", "status", "details": [FcmError, BadRequest]}}`.
    private static func error(
        _ code: Int, _ status: String, _ message: String, errorCode: String? = nil,
        fieldViolation: (field: String, description: String)? = nil
    ) -> SendAnswer {
        var error: JSONObject = ["code": .int(Int64(code)), "message": .string(message), "status": .string(status)]
        var details: [JSONValue] = []
        if let errorCode {
            details.append(["@type": .string(fcmErrorType), "errorCode": .string(errorCode)])
        }
        if let fieldViolation {
            details.append([
                "@type": .string(badRequestType),
                "fieldViolations": [["field": .string(fieldViolation.field), "description": .string(fieldViolation.description)]],
            ])
        }
        if !details.isEmpty { error["details"] = .array(details) }
        return SendAnswer(status: code, headers: [HTTP2Header(name: "content-type", value: "application/json; charset=UTF-8")],
                          body: JSONValue.object(["error": .object(error)]).serializedBytes)
    }
}
