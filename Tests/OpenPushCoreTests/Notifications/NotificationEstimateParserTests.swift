import Testing
import OpenPushCore

/// An estimate's body: targeting alone, or a whole send validated as a send.
@Suite struct NotificationEstimateParserTests {
    @Test func targetingAloneNeedsNoContents() throws {
        let estimate = try NotificationEstimateParser.parse(["app_id": "app_1", "include_player_ids": ["sub_1"]]).get()
        #expect(estimate.targeting == .subscriptionIDs(["sub_1"]) && estimate.kind == .alert && !estimate.appleExcluded)
        let external = try NotificationEstimateParser.parse(["include_external_user_ids": ["u-1"], "isIos": false]).get()
        #expect(external.targeting == .aliases([AliasTarget(label: "external_id", values: ["u-1"])]) && external.appleExcluded)
    }

    @Test func anyOtherFieldMakesItAWholeSendWithTheSendsErrors() {
        let body: JSONObject = ["included_segments": ["All"], "ios_badgeType": "Sometimes"]
        let estimate = NotificationEstimateParser.parse(body).map(\.targeting)
        let send = NotificationSendParser.parse(body).map(\.targeting)
        #expect(estimate == send)
        guard case .failure = estimate else {
            Issue.record("a bad send body was accepted")
            return
        }
    }

    @Test func noTargetingIsTheSendsError() {
        #expect(NotificationEstimateParser.parse(["app_id": "app_1"]).map(\.kind) == .failure(InvalidInput(["use exactly one targeting method"])))
    }
}
