import Testing
import OpenPushCore

@Suite struct FCMAnswerTests {
    /// An FCM v1 error body, as FCM writes it.
    static func error(_ code: Int, _ status: String, _ message: String, errorCode: String? = nil,
                      fieldViolation field: String? = nil) -> String {
        var details: [JSONValue] = []
        if let errorCode {
            details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": .string(errorCode)])
        }
        if let field {
            details.append([
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [["field": .string(field), "description": "Invalid registration token"]],
            ])
        }
        let error: JSONValue = [
            "error": ["code": .int(Int64(code)), "message": .string(message), "status": .string(status), "details": .array(details)],
        ]
        return error.serialized
    }

    /// Every row of the issue's outcome table, and the fallbacks around it.
    @Test(arguments: [
        // 200 with name: accepted
        (200, nil, #"{"name": "projects/demo/messages/0:1500415314455276%31bd1c9631bd1c96"}"#,
         FCMAnswer.accepted(name: "projects/demo/messages/0:1500415314455276%31bd1c9631bd1c96")),
        (200, nil, "", .accepted(name: nil)),
        // token dead
        (404, nil, error(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED"), .tokenDead(.unregistered)),
        (400, nil, error(400, "INVALID_ARGUMENT", "Invalid registration token", errorCode: "INVALID_ARGUMENT",
                         fieldViolation: "message.token"), .tokenDead(.invalidArgument)),
        (400, nil, error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                         errorCode: "INVALID_ARGUMENT"), .tokenDead(.invalidArgument)),
        (400, nil, error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token"),
         .tokenDead(.invalidArgument)),
        (403, nil, error(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH"),
         .tokenDead(.senderIDMismatch)),
        // other 400: failed, FCM's message kept
        (400, nil, error(400, "INVALID_ARGUMENT", "Invalid value at 'message.android.ttl'", errorCode: "INVALID_ARGUMENT",
                         fieldViolation: "message.android.ttl"),
         .failed(.invalidArgument, message: "Invalid value at 'message.android.ttl'")),
        (400, nil, "", .failed(.invalidArgument, message: nil)),
        // 429: after Retry-After, or the backoff
        (429, "30", error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", errorCode: "QUOTA_EXCEEDED"), .retryAfter(seconds: 30)),
        (429, nil, error(429, "RESOURCE_EXHAUSTED", "Quota exceeded", errorCode: "QUOTA_EXCEEDED"), .retryAfter(seconds: nil)),
        (429, "Wed, 21 Oct 2026 07:28:00 GMT", "", .retryAfter(seconds: nil)),
        (429, " 5 ", "<html>Too many</html>", .retryAfter(seconds: 5)),
        // 500, 503: retried
        (500, nil, error(500, "INTERNAL", "Internal error", errorCode: "INTERNAL"), .retry(.internalError)),
        (503, nil, error(503, "UNAVAILABLE", "The service is unavailable", errorCode: "UNAVAILABLE"), .retry(.unavailable)),
        (503, nil, "upstream connect error", .retry(.unavailable)),
        (502, nil, "<html>Bad Gateway</html>", .retry(FCMErrorCode("HTTP 502"))),
        // 401 and auth errors: a new access token
        (401, nil, error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), .reauthenticate(.unauthenticated)),
        (401, nil, error(401, "UNAUTHENTICATED", "APNs certificate rejected", errorCode: "THIRD_PARTY_AUTH_ERROR"),
         .reauthenticate(.thirdPartyAuthError)),
        (401, nil, "", .reauthenticate(.unauthenticated)),
        (403, nil, error(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied"),
         .reauthenticate(.permissionDenied)),
        // a bare 404 (a wrong project URL) never kills a token
        (404, nil, "<html>Not Found</html>", .failed(.notFound, message: nil)),
        (404, nil, error(404, "NOT_FOUND", "Requested entity was not found."), .failed(.notFound, message: "Requested entity was not found.")),
        // codes this classifier does not know: the status decides
        (400, nil, error(400, "FAILED_PRECONDITION", "Something new", errorCode: "SOMETHING_NEW"),
         .failed(FCMErrorCode("SOMETHING_NEW"), message: "Something new")),
        (503, nil, error(503, "SOMETHING_NEW", "Later"), .retry(FCMErrorCode("SOMETHING_NEW"))),
        (429, "7", error(429, "SOMETHING_NEW", "Later"), .retryAfter(seconds: 7)),
        (418, nil, "", .failed(FCMErrorCode("HTTP 418"), message: nil)),
    ] as [(Int, String?, String, FCMAnswer)])
    func classifies(_ status: Int, _ retryAfter: String?, _ body: String, _ expected: FCMAnswer) {
        #expect(FCMAnswer.classify(status: status, retryAfter: retryAfter, body: body) == expected)
    }

    @Test func theFcmErrorCodeWinsOverTheStatus() {
        // FCM's 404 carries status NOT_FOUND; only the detail says the token is gone.
        let body = Self.error(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED")
        #expect(FCMAnswer.classify(status: 404, retryAfter: nil, body: body) == .tokenDead(.unregistered))
        // An empty errorCode falls back to the status.
        let blank = Self.error(503, "UNAVAILABLE", "x", errorCode: "")
        #expect(FCMAnswer.classify(status: 503, retryAfter: nil, body: blank) == .retry(.unavailable))
    }

    @Test func aViolationOnAnotherFieldIsNotAboutTheToken() {
        let body = Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload", errorCode: "INVALID_ARGUMENT",
                              fieldViolation: "message.data")
        #expect(FCMAnswer.classify(status: 400, retryAfter: nil, body: body) == .failed(.invalidArgument, message: "Invalid JSON payload"))
    }

    @Test func theReasonEachOutcomeRecords() {
        #expect(FCMAnswer.accepted(name: "n").reason == nil)
        #expect(FCMAnswer.tokenDead(.unregistered).reason == .unregistered)
        #expect(FCMAnswer.failed(.invalidArgument, message: "m").reason == .invalidArgument)
        #expect(FCMAnswer.retryAfter(seconds: 3).reason == .quotaExceeded)
        #expect(FCMAnswer.retry(.unavailable).reason == .unavailable)
        #expect(FCMAnswer.reauthenticate(.unauthenticated).reason == .unauthenticated)
    }

    @Test(arguments: [("0", 0), ("120", 120), ("\t9", 9)] as [(String, Int)])
    func retryAfterSeconds(_ header: String, _ seconds: Int) {
        #expect(FCMAnswer.retryAfterSeconds(header) == seconds)
    }

    @Test(arguments: ["", "-1", "1.5", "soon", "9999999999", "Wed, 21 Oct 2026 07:28:00 GMT"])
    func retryAfterThatIsNotSeconds(_ header: String) {
        #expect(FCMAnswer.retryAfterSeconds(header) == nil)
    }
}
